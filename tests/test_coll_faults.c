/* placeholder: being written (issue 3) */
#include <stdio.h>
int main(void) { puts("placeholder"); return 1; }
