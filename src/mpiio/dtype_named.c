/* Named (predefined) datatypes. Most are one block of their size at their
 * true lb. The pair types of MPI_MINLOC / MPI_MAXLOC are C structs {value;
 * int} and may have padding between the members: their blocks follow the C
 * layout the MPI library was built with, and the size check below catches a
 * library that disagrees. */
#include <stddef.h>

#include "core/error.h"
#include "mpiio/dtype_build.h"

#define PAIR_(T) offsetof(struct { T a; int b; }, b)

int ostio__dtype_named(MPI_Datatype t, ostio__dtype_list *out)
{
  MPI_Count size, tlb, text;
  if (MPI_Type_size_x(t, &size) != MPI_SUCCESS
      || MPI_Type_get_true_extent_x(t, &tlb, &text) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "named datatype: MPI_Type_size_x / get_true_extent_x failed");
  if (size == text)
    return ostio__dtype_push(out, (int64_t)tlb, (int64_t)size, "named datatype");
  static const struct {
    size_t first, gap_to_int;
  } layout[] = {
    {sizeof(float), PAIR_(float)},   {sizeof(double), PAIR_(double)},
    {sizeof(long), PAIR_(long)},     {sizeof(short), PAIR_(short)},
    {sizeof(long double), PAIR_(long double)},
  };
  MPI_Datatype pairs[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT,
                          MPI_LONG_DOUBLE_INT};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    if (t != pairs[i])
      continue;
    if ((MPI_Count)(layout[i].first + sizeof(int)) != size)
      break;
    int rc = ostio__dtype_push(out, 0, (int64_t)layout[i].first, "named pair datatype");
    if (!rc)
      rc = ostio__dtype_push(out, (int64_t)layout[i].gap_to_int, (int64_t)sizeof(int),
                             "named pair datatype");
    return rc;
  }
  char name[MPI_MAX_OBJECT_NAME] = "?";
  int len;
  MPI_Type_get_name(t, name, &len);
  return ostio__fail(OSTIO_ENOTSUP, "named datatype %s: %lld data bytes over a true extent of "
                     "%lld: layout unknown, not supported", name, (long long)size,
                     (long long)text);
}
