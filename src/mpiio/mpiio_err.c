/* Errors of the interposer (mfile.h): an OSTIO_E* code becomes an MPI error
 * class; the message (ostio_last_error) travels in an error code of that
 * class made with MPI_Add_error_code, whose string is replaced by each
 * failure, so MPI_Error_string names what was wrong; then the file's error
 * handler runs, as MPI says (files default to MPI_ERRORS_RETURN). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiio/mfile.h"

int ostio__mpiio_class_of(int rc)
{
  switch (rc) {
  case OSTIO_EINVAL: case OSTIO_ERANGE: case OSTIO_EOVERLAP: return MPI_ERR_ARG;
  case OSTIO_ENOMEM: return MPI_ERR_NO_MEM;
  case OSTIO_ENOENT: return MPI_ERR_NO_SUCH_FILE;
  case OSTIO_EEXIST: return MPI_ERR_FILE_EXISTS;
  case OSTIO_EACCES: return MPI_ERR_ACCESS;
  case OSTIO_ENOTSUP: return MPI_ERR_UNSUPPORTED_OPERATION;
  case OSTIO_ENOSPC: return MPI_ERR_NO_SPACE;
  case OSTIO_EHINT: return MPI_ERR_INFO_VALUE;
  case OSTIO_EISDIR: case OSTIO_ENOTDIR: return MPI_ERR_BAD_FILE;
  case OSTIO_EMPI: return MPI_ERR_OTHER;
  default: return MPI_ERR_IO; /* EIO, ELAYOUT, EFORMAT, ENOTEMPTY, ENOLAYOUT, EFBIG, ESTAGED */
  }
}

/* One added code per class, made on first use; its string is replaced by
 * every failure of that class (MPI keeps the last string of a code). Where
 * the MPI library does not give such a code back with its string (MPICH 4.0
 * shows an unrelated error stack for codes added to predefined classes),
 * the call returns the class itself; the message goes to stderr (one line
 * per failure) when OSTIO_MPIIO_VERBOSE=1 or when the file's error handler
 * is not MPI_ERRORS_RETURN (the program will not get to print it). */
#define NCLASS 128
static int codes[NCLASS];
static int strings_work = -1; /* -1 not probed yet */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int probe(void)
{
  int code = 0, len = 0;
  char back[MPI_MAX_ERROR_STRING];
  const char *mark = "ostio-mpiio probe";
  if (MPI_Add_error_code(MPI_ERR_OTHER, &code) != MPI_SUCCESS) return 0;
  if (MPI_Add_error_string(code, mark) != MPI_SUCCESS) return 0;
  if (MPI_Error_string(code, back, &len) != MPI_SUCCESS) return 0;
  codes[MPI_ERR_OTHER] = code;
  return strcmp(back, mark) == 0;
}

static int verbose(void)
{
  const char *v = getenv("OSTIO_MPIIO_VERBOSE");
  return v && !strcmp(v, "1");
}

/* The code of class cls carrying "call: msg"; *kept is 0 when the MPI
 * library cannot carry the text (the caller decides whether to print it). */
static int make_code(int cls, const char *text, int *kept)
{
  *kept = 0;
  if (cls <= 0 || cls >= NCLASS) return cls;
  pthread_mutex_lock(&lock);
  if (strings_work < 0) strings_work = probe();
  int code = 0;
  if (strings_work) {
    code = codes[cls];
    if (!code && MPI_Add_error_code(cls, &code) == MPI_SUCCESS) codes[cls] = code;
    if (code && MPI_Add_error_string(code, text) == MPI_SUCCESS) *kept = 1;
  }
  pthread_mutex_unlock(&lock);
  return code ? code : cls;
}

/* The code of class cls for call's failure; the text is printed where the
 * code cannot carry it and OSTIO_MPIIO_VERBOSE=1 asks, or mf's handler will
 * not return to the program. */
static int code_for(ostio__mfile *mf, int cls, const char *call, const char *msg)
{
  char text[MPI_MAX_ERROR_STRING];
  int n = snprintf(text, sizeof text, "%s (ostio): %s", call, msg && *msg ? msg : "failed");
  if (n >= (int)sizeof text) /* cut to MPI's limit: say so */
    memcpy(text + sizeof text - 4, "...", 4);
  int kept = 0, code = make_code(cls, text, &kept);
  MPI_Errhandler eh = MPI_ERRORS_RETURN;
  if (mf) eh = mf->errh;
  else if (ostio__mpiio_next.get_errhandler(MPI_FILE_NULL, &eh) == MPI_SUCCESS &&
           eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL)
    MPI_Errhandler_free(&eh);
  if (!kept && (verbose() || eh != MPI_ERRORS_RETURN)) fprintf(stderr, "ostio-mpiio: %s\n", text);
  return code;
}

static int predefined(MPI_Errhandler eh)
{
  return eh == MPI_ERRHANDLER_NULL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ARE_FATAL;
}

int ostio__mpiio_raise(ostio__mfile *mf, int code)
{
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (mf) eh = mf->errh;
  else if (ostio__mpiio_next.get_errhandler(MPI_FILE_NULL, &eh) != MPI_SUCCESS) return code;
  if (eh == MPI_ERRORS_RETURN) goto done;
  MPI_File_errhandler_function *fn = mf ? mf->errh_fn : NULL;
  if (fn && mf) {
    /* The application's function sees the handle it holds. */
    MPI_File h = (MPI_File)(void *)mf;
    int c = code;
    fn(&h, &c);
  } else if (!mf) {
    ostio__mpiio_next.call_errhandler(MPI_FILE_NULL, code);
  } else {
    /* A predefined handler (MPI_ERRORS_ARE_FATAL, ...): MPI runs it as the
     * default file handler for the moment of the call. */
    MPI_Errhandler old = MPI_ERRHANDLER_NULL;
    ostio__mpiio_next.get_errhandler(MPI_FILE_NULL, &old);
    ostio__mpiio_next.set_errhandler(MPI_FILE_NULL, eh);
    ostio__mpiio_next.call_errhandler(MPI_FILE_NULL, code);
    ostio__mpiio_next.set_errhandler(MPI_FILE_NULL, old);
    if (!predefined(old)) MPI_Errhandler_free(&old);
  }
done:
  if (!mf && !predefined(eh)) MPI_Errhandler_free(&eh);
  return code;
}

int ostio__mpiio_fail(ostio__mfile *mf, const char *call, int rc)
{
  return ostio__mpiio_raise(mf, code_for(mf, ostio__mpiio_class_of(rc), call, ostio_last_error()));
}

int ostio__mpiio_failc(ostio__mfile *mf, const char *call, int cls, const char *fmt, ...)
{
  char msg[MPI_MAX_ERROR_STRING];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ostio__mpiio_raise(mf, code_for(mf, cls, call, msg));
}
