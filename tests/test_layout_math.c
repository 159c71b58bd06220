#include "testutil.h"
int main(void){ return TEST_DONE(); }
