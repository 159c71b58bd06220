/* A small, strict JSON reader (RFC 8259) for ostio's input documents: system
 * descriptions (sysdesc.h) and, later, statistics read back. It builds a
 * tree in one pass, in time and memory proportional to the input.
 *
 * Strict: objects, arrays, strings, numbers, true, false, null and nothing
 * else. Strings must be valid UTF-8 with no raw control characters; escapes
 * are \" \\ \/ \b \f \n \r \t and \uXXXX (surrogate pairs combined, a lone
 * surrogate refused). Numbers follow the JSON grammar (no leading zeros, no
 * '+', no NaN or Infinity); one without fraction or exponent is an int64
 * (refused when outside int64), any other a finite double. Keys are unique
 * within an object. One value per document; whitespace around it only (a
 * leading UTF-8 byte-order mark is skipped). Nesting is limited to
 * OSTIO__JSON_MAX_DEPTH levels, the input to OSTIO__JSON_MAX_BYTES.
 *
 * Errors return OSTIO_EINVAL (OSTIO_ENOMEM when memory runs out) with a
 * detail for ostio_last_error(): "JSON line L column C: what was found,
 * what was expected". Lines and columns are 1-based; columns count bytes.
 * Never aborts; no global state. MPI-free. */
#ifndef OSTIO_MODEL_JSON_H
#define OSTIO_MODEL_JSON_H

#include <stddef.h>
#include <stdint.h>

#define OSTIO__JSON_MAX_DEPTH 64
#define OSTIO__JSON_MAX_BYTES ((size_t)64 << 20)

typedef enum ostio__json_type {
  OSTIO__JSON_NULL,
  OSTIO__JSON_BOOL,
  OSTIO__JSON_INT,         /* no fraction, no exponent: u.i               */
  OSTIO__JSON_DOUBLE,      /* fraction or exponent: u.d (finite)          */
  OSTIO__JSON_STRING,
  OSTIO__JSON_ARRAY,
  OSTIO__JSON_OBJECT
} ostio__json_type;

typedef struct ostio__json ostio__json;
typedef struct ostio__json_member ostio__json_member;

struct ostio__json {
  ostio__json_type type;
  int line, col;           /* where the value starts (1-based)            */
  union {
    int b;                                              /* BOOL: 0 or 1   */
    int64_t i;                                          /* INT            */
    double d;                                           /* DOUBLE         */
    struct { char *s; size_t len; } str;   /* STRING: UTF-8, NUL-terminated;
                                            * may hold \u0000 (len counts it) */
    struct { ostio__json *item; size_t n; } arr;        /* ARRAY          */
    struct { ostio__json_member *m; size_t n; } obj;    /* OBJECT, in order */
  } u;
};

struct ostio__json_member {
  char *key;               /* NUL-terminated UTF-8                         */
  size_t keylen;
  ostio__json value;       /* value.line / col: where the value starts;
                            * the key's own position is line / col below  */
  int line, col;
};

/* Parses len bytes of text (need not be NUL-terminated) into a tree; *out
 * receives it (free with ostio__json_free), or NULL on failure. */
int ostio__json_parse(const char *text, size_t len, ostio__json **out);
/* Frees a tree from ostio__json_parse (NULL is fine). */
void ostio__json_free(ostio__json *root);

/* The member of object obj named key, or NULL (also when obj is not an
 * object). Linear in the object's size. */
const ostio__json_member *ostio__json_find(const ostio__json *obj, const char *key);
/* "null", "boolean", "integer", "number", "string", "array", "object". */
const char *ostio__json_type_name(ostio__json_type t);

#endif
