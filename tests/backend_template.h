/* What tests/backend_template.c shows the tests. */
#ifndef OSTIO_TEST_BACKEND_TEMPLATE_H
#define OSTIO_TEST_BACKEND_TEMPLATE_H
extern long ostio_test_template_moves; /* requests the template moved */
#endif
