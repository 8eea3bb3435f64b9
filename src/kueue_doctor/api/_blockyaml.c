/* A decoder for one YAML document in the block style kubectl writes (``kubectl get -o yaml``,
 * and PyYAML's block dumps): mappings and sequences by indentation, plain, single-quoted and
 * one-line double-quoted scalars, ``|``/``|-``/``|+`` literal blocks, ``{}`` and ``[]``.
 *
 * It builds exactly what PyYAML's safe loader builds (YAML 1.1 resolution) for what it accepts,
 * and refuses (returns None) everything else, for the callers' other readers (yamlfast.py):
 * any byte that is not printable ASCII or a newline, a blank or comment line, tags, anchors,
 * aliases, flow collections other than empty ones, folded blocks, indentation indicators, a
 * document marker, several spaces where kubectl writes one, a plain scalar PyYAML might read as
 * something other than a string (a bool, null or number word, anything numeric- or time-looking)
 * unless it is one of the forms both schemas agree on: decimal integers without a sign or leading
 * zero, ``null``, ``true``, ``false``. Refusing never changes a result, only which reader makes it.
 *
 * The rules followed are PyYAML's (yaml/scanner.py: scan_plain, scan_flow_scalar, scan_block_scalar;
 * yaml/resolver.py: the implicit resolvers; yaml/constructor.py: construct_mapping keeps the
 * first position of a repeated key and its last value). Every read is bounds-checked.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define CACHE_SLOTS 8192      /* short strings (keys, names, reasons) repeat across thousands of objects */
#define CACHE_MAX_LEN 48
#define MAX_DEPTH 500         /* far beyond any object's nesting */

typedef struct {
    const char *s;
    Py_ssize_t n;
    Py_ssize_t line;          /* start of the current line */
    Py_ssize_t vstart;        /* the rest of a "- " line read as a line of its own, or -1 */
    int vind;                 /* that virtual line's indentation */
    int refused;
    int depth;                /* nesting so far: a deeper text is refused before the C stack runs out */
    PyObject **cache;
    char *buf;                /* scratch for folded and escaped scalars */
    Py_ssize_t cap;
} P;

static PyObject *refuse(P *p) { p->refused = 1; return NULL; }

static int at_eof(P *p) { return p->vstart < 0 && p->line >= p->n; }

/* the current line: its indentation, where its content starts and where it ends */
static int cur(P *p, Py_ssize_t *content, Py_ssize_t *end) {
    Py_ssize_t c;
    int ind;
    if (p->vstart >= 0) {
        c = p->vstart;
        ind = p->vind;
    } else {
        c = p->line;
        while (c < p->n && p->s[c] == ' ') c++;
        ind = (int)(c - p->line);
    }
    const char *nl = c < p->n ? memchr(p->s + c, '\n', (size_t)(p->n - c)) : NULL;
    *content = c;
    *end = nl ? (Py_ssize_t)(nl - p->s) : p->n;
    return ind;
}

static void next_line(P *p, Py_ssize_t end) {
    p->vstart = -1;
    p->line = end < p->n ? end + 1 : p->n;
}

static PyObject *str_of(P *p, const char *a, Py_ssize_t len) {
    if (len > CACHE_MAX_LEN) {
        PyObject *u = PyUnicode_New(len, 127);
        if (u) memcpy(PyUnicode_DATA(u), a, (size_t)len);
        return u;
    }
    Py_uhash_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < len; i++) h = (h ^ (unsigned char)a[i]) * 16777619u;
    h ^= (Py_uhash_t)len;
    PyObject **slot = &p->cache[h & (CACHE_SLOTS - 1)];
    PyObject *u = *slot;
    if (u && PyUnicode_GET_LENGTH(u) == len && memcmp(PyUnicode_DATA(u), a, (size_t)len) == 0) {
        Py_INCREF(u);
        return u;
    }
    u = PyUnicode_New(len, 127);
    if (!u) return NULL;
    memcpy(PyUnicode_DATA(u), a, (size_t)len);
    Py_XDECREF(*slot);
    Py_INCREF(u);
    *slot = u;
    return u;
}

static int reserve(P *p, Py_ssize_t need) {
    if (need <= p->cap) return 0;
    Py_ssize_t cap = p->cap ? p->cap : 256;
    while (cap < need) cap *= 2;
    char *b = PyMem_Realloc(p->buf, (size_t)cap);
    if (!b) { PyErr_NoMemory(); return -1; }
    p->buf = b;
    p->cap = cap;
    return 0;
}

static int is_word(const char *a, Py_ssize_t len, const char *const *words) {
    for (; *words; words++)
        if ((Py_ssize_t)strlen(*words) == len && memcmp(a, *words, (size_t)len) == 0) return 1;
    return 0;
}

/* yaml/resolver.py: bool (YAML 1.1 words), null, merge and value */
static const char *const OTHER_WORDS[] = {
    "yes", "Yes", "YES", "no", "No", "NO", "True", "TRUE", "False", "FALSE", "on", "On", "ON",
    "off", "Off", "OFF", "~", "Null", "NULL", "<<", "=", NULL};
/* Whether a plain scalar starting with a digit, sign or dot might match PyYAML's int, float or
 * timestamp pattern (a superset): a time's "dddd-" start; a "0x"/"0b" prefix; digits and "_:.+- "
 * alone, unless two dots or a space without a colon rule out every pattern (an address, a
 * version); a dot with no letters but an exponent's, inf's or nan's. */
static int numeric_like(const char *a, Py_ssize_t len) {
    if (len >= 5 && a[4] == '-') {
        int digits = 1;
        for (int i = 0; i < 4; i++) digits &= a[i] >= '0' && a[i] <= '9';
        if (digits) return 1;
    }
    Py_ssize_t k = (a[0] == '-' || a[0] == '+') ? 1 : 0;
    if (len > k + 1 && a[k] == '0' && strchr("xXbBoO", a[k + 1])) return 1;
    int letters = 0, other_letters = 0, dots = 0, colons = 0, spaces = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        char c = a[i];
        if ((c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-') continue;
        if (c == '.') dots++;
        else if (c == ':') colons++;
        else if (c == ' ') spaces++;
        else {
            letters = 1;
            if (!strchr("eEinfINFaA", c)) other_letters = 1;
        }
    }
    if (!letters) return colons || (dots < 2 && !spaces);
    return dots && !other_letters;
}

/* A plain scalar as PyYAML resolves it: a str, or one of the agreed forms; NULL and refused when
 * it could be anything else. ``folded`` scalars hold a space, so only a timestamp could match. */
static PyObject *resolve_plain(P *p, const char *a, Py_ssize_t len, int folded) {
    char c0 = a[0];
    if (!folded) {
        if (len == 4 && memcmp(a, "null", 4) == 0) Py_RETURN_NONE;
        if (len == 4 && memcmp(a, "true", 4) == 0) Py_RETURN_TRUE;
        if (len == 5 && memcmp(a, "false", 5) == 0) Py_RETURN_FALSE;
        if (is_word(a, len, OTHER_WORDS)) return refuse(p);
        Py_ssize_t d = (c0 == '-' || c0 == '+') ? 1 : 0;   /* a decimal integer, signed or not */
        if (d < len && a[d] >= '0' && a[d] <= '9') {
            Py_ssize_t i = d;
            while (i < len && a[i] >= '0' && a[i] <= '9') i++;
            if (i == len && (a[d] != '0' || len == d + 1)) {
                if (len - d <= 18) {
                    long long v = 0;
                    for (i = d; i < len; i++) v = v * 10 + (a[i] - '0');
                    return PyLong_FromLongLong(c0 == '-' ? -v : v);
                }
                if (reserve(p, len + 1) < 0) return NULL;
                memcpy(p->buf, a, (size_t)len);
                p->buf[len] = 0;
                return PyLong_FromString(p->buf, NULL, 10);
            }
        }
    }
    if (((c0 >= '0' && c0 <= '9') || c0 == '-' || c0 == '+' || c0 == '.') && numeric_like(a, len))
        return refuse(p);   /* it may be a number or a time to PyYAML */
    return str_of(p, a, len);
}

/* what no plain scalar may start with here (yaml/scanner.py check_plain, plus what we leave to others) */
static int bad_plain_start(const char *a, Py_ssize_t len) {
    char c = a[0];
    if (strchr("?:,[]{}#&*!|>'\"%@`", c)) return 1;
    if (c == '-' && (len == 1 || a[1] == ' ')) return 1;
    return 0;
}

/* one line's part of a plain scalar: nothing that would end it or make it something else */
static int plain_line_ok(const char *a, Py_ssize_t len) {
    if (len == 0 || a[len - 1] == ' ' || a[len - 1] == ':') return 0;
    for (Py_ssize_t i = 0; i + 1 < len; i++) {
        if (a[i] == ':' && a[i + 1] == ' ') return 0;
        if (a[i] == ' ' && (a[i + 1] == '#' || a[i + 1] == ' ')) return 0;
    }
    return 1;
}

/* A plain scalar from a..e on the current line, and its continuation lines (indented more than
 * ``ind``), folded into one line as scan_plain does. The lines are consumed. */
static PyObject *plain(P *p, Py_ssize_t a, Py_ssize_t e, int ind) {
    const char *s = p->s;
    if (bad_plain_start(s + a, e - a) || !plain_line_ok(s + a, e - a)) return refuse(p);
    next_line(p, e);
    Py_ssize_t c, e2;
    if (at_eof(p) || cur(p, &c, &e2) <= ind) return resolve_plain(p, s + a, e - a, 0);
    Py_ssize_t len = e - a;
    if (reserve(p, len) < 0) return NULL;
    memcpy(p->buf, s + a, (size_t)len);
    while (!at_eof(p)) {
        int i = cur(p, &c, &e2);
        if (i <= ind) break;
        if (c == e2 || s[c] == '#' || bad_plain_start(s + c, e2 - c) || !plain_line_ok(s + c, e2 - c))
            return refuse(p);
        if (reserve(p, len + 1 + (e2 - c)) < 0) return NULL;
        p->buf[len++] = ' ';
        memcpy(p->buf + len, s + c, (size_t)(e2 - c));
        len += e2 - c;
        next_line(p, e2);
    }
    return resolve_plain(p, p->buf, len, 1);
}

/* Past the line ending at e, inside a quoted scalar, to its next line with content (indented more
 * than ``ind``): how many blank lines came between (each folds to a line feed), -1 to refuse. */
static int next_quoted_line(P *p, Py_ssize_t e, int ind, Py_ssize_t *c, Py_ssize_t *end) {
    int blank = 0;
    next_line(p, e);
    for (;;) {
        if (at_eof(p)) return -1;
        int i = cur(p, c, end);
        if (*c < *end) return i > ind ? blank : -1;
        blank++;
        next_line(p, *end);
    }
}

/* A single-quoted scalar opening at a ('), closing on this line or a later one indented more than
 * ``ind`` (a line break folds to a space; blank lines are refused). ``*after`` is just past the
 * closing quote, on the line the parser is then at. */
static PyObject *single_quoted(P *p, Py_ssize_t a, Py_ssize_t e, int ind, Py_ssize_t *after) {
    const char *s = p->s;
    Py_ssize_t len = 0, i = a + 1, seg;
    int simple = 1;
    for (;;) {
        seg = len;   /* where this line's part starts */
        while (i < e) {
            if (s[i] == '\'') {
                if (i + 1 < e && s[i + 1] == '\'') {
                    simple = 0;
                    if (reserve(p, len + 1) < 0) return NULL;
                    p->buf[len++] = '\'';
                    i += 2;
                    continue;
                }
                *after = i + 1;
                if (simple) return str_of(p, s + a + 1, i - a - 1);
                return PyUnicode_DecodeASCII(p->buf, len, NULL);
            }
            if (reserve(p, len + 1) < 0) return NULL;
            p->buf[len++] = s[i++];
        }
        /* the line ends inside the quotes: fold */
        simple = 0;
        while (len > seg && p->buf[len - 1] == ' ') len--;
        Py_ssize_t c;
        int blank = next_quoted_line(p, e, ind, &c, &e);
        if (blank < 0) return refuse(p);
        if (reserve(p, len + blank + 1) < 0) return NULL;
        if (!blank) p->buf[len++] = ' ';
        while (blank-- > 0) p->buf[len++] = '\n';
        i = c;
    }
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int put_utf8(P *p, Py_ssize_t *len, unsigned long cp) {
    if (reserve(p, *len + 4) < 0) return -1;
    char *b = p->buf + *len;
    if (cp < 0x80) { b[0] = (char)cp; *len += 1; }
    else if (cp < 0x800) { b[0] = (char)(0xC0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 0x3F)); *len += 2; }
    else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)); *len += 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F)); *len += 4;
    }
    return 0;
}

/* A double-quoted scalar opening at a ("), with PyYAML's escapes (scanner.py ESCAPE_REPLACEMENTS,
 * ESCAPE_CODES), closing on this line or a later one indented more than ``ind``: a line break folds
 * to a space, an escaped one (a backslash ending the line) to nothing; blank lines are refused. */
static PyObject *double_quoted(P *p, Py_ssize_t a, Py_ssize_t e, int ind, Py_ssize_t *after) {
    const char *s = p->s;
    Py_ssize_t len = 0, i = a + 1, seg = 0;
    for (;;) {
        if (i >= e || (s[i] == '\\' && i + 1 == e)) {   /* the line ends inside the quotes: fold */
            int escaped = i < e;
            if (!escaped)
                while (len > seg && p->buf[len - 1] == ' ') len--;
            Py_ssize_t c;
            int blank = next_quoted_line(p, e, ind, &c, &e);
            if (blank < 0) return refuse(p);
            if (!blank && !escaped && put_utf8(p, &len, ' ') < 0) return NULL;
            while (blank-- > 0)
                if (put_utf8(p, &len, '\n') < 0) return NULL;
            i = c;
            seg = len;
            continue;
        }
        char c = s[i];
        if (c == '"') {
            *after = i + 1;
            return PyUnicode_DecodeUTF8(p->buf, len, NULL);
        }
        if (c != '\\') {
            if (put_utf8(p, &len, (unsigned char)c) < 0) return NULL;
            i++;
            continue;
        }
        char x = s[i + 1];
        unsigned long cp;
        int digits = x == 'x' ? 2 : x == 'u' ? 4 : x == 'U' ? 8 : 0;
        i += 2;
        if (digits) {
            if (i + digits > e) return refuse(p);
            cp = 0;
            for (int k = 0; k < digits; k++) {
                int h = hexval(s[i + k]);
                if (h < 0) return refuse(p);
                cp = cp * 16 + (unsigned long)h;
            }
            i += digits;
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return refuse(p);
        } else {
            switch (x) {
            case '0': cp = 0; break;
            case 'a': cp = 7; break;
            case 'b': cp = 8; break;
            case 't': cp = 9; break;
            case 'n': cp = 10; break;
            case 'v': cp = 11; break;
            case 'f': cp = 12; break;
            case 'r': cp = 13; break;
            case 'e': cp = 27; break;
            case ' ': cp = ' '; break;
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'N': cp = 0x85; break;
            case '_': cp = 0xA0; break;
            case 'L': cp = 0x2028; break;
            case 'P': cp = 0x2029; break;
            default: return refuse(p);
            }
        }
        if (put_utf8(p, &len, cp) < 0) return NULL;
        seg = len;                         /* an escaped space is no trailing space */
    }
}

/* A literal block (header ``|``, ``|-`` or ``|+`` ending the line at e) whose lines are indented
 * more than ``ind``: its indentation is its first line's, which may not be blank; it ends at the
 * first non-blank line indented less (scan_block_scalar, with its chomping). */
static PyObject *literal(P *p, Py_ssize_t h, Py_ssize_t e, int ind) {
    const char *s = p->s;
    int chomp = 0;   /* 0 clip, -1 strip, 1 keep */
    if (e - h == 2 && s[h + 1] == '-') chomp = -1;
    else if (e - h == 2 && s[h + 1] == '+') chomp = 1;
    else if (e - h != 1) return refuse(p);
    next_line(p, e);
    Py_ssize_t c, end;
    if (at_eof(p)) return refuse(p);
    int bi = cur(p, &c, &end);
    if (bi <= ind || c == end) return refuse(p);
    Py_ssize_t len = 0, breaks = 0;   /* line breaks not yet written */
    int any = 0;
    while (p->line < p->n) {
        Py_ssize_t ls = p->line;
        const char *nl = memchr(s + ls, '\n', (size_t)(p->n - ls));
        end = nl ? (Py_ssize_t)(nl - s) : p->n;
        Py_ssize_t k = ls;
        while (k < end && s[k] == ' ') k++;
        if (k == end) {                    /* a blank line */
            if (end - ls > bi) return refuse(p);   /* spaces beyond the indentation are content */
            breaks++;
            p->line = nl ? end + 1 : p->n;
            continue;
        }
        if (k - ls < bi) break;
        if (reserve(p, len + breaks + (end - ls - bi) + 1) < 0) return NULL;
        if (any) breaks++;                 /* the break ending the previous content line */
        while (breaks > 0) { p->buf[len++] = '\n'; breaks--; }
        memcpy(p->buf + len, s + ls + bi, (size_t)(end - ls - bi));
        len += end - ls - bi;
        any = 1;
        p->line = nl ? end + 1 : p->n;
        if (!nl) { breaks = -1; break; }   /* the text ends without a final break */
    }
    /* trailing breaks: the last content line's own one, then the blank lines after it */
    Py_ssize_t trailing = breaks < 0 ? 0 : breaks + 1;
    if (chomp == 0 && trailing > 0) trailing = 1;
    if (chomp == -1) trailing = 0;
    if (reserve(p, len + trailing) < 0) return NULL;
    while (trailing-- > 0) p->buf[len++] = '\n';
    /* the blank lines a clipped or stripped block leaves are not content of anything else */
    p->vstart = -1;
    return PyUnicode_DecodeASCII(p->buf, len, NULL);
}

static PyObject *node(P *p, int ind);
static PyObject *sequence(P *p, int ind);
static PyObject *nested(P *p, PyObject *(*parse)(P *, int), int ind);
static PyObject *mapping(P *p, int ind);

static int seq_entry(const char *s, Py_ssize_t c, Py_ssize_t e) {
    return s[c] == '-' && (c + 1 == e || s[c + 1] == ' ');
}

/* A value after "key: " or "- " (from a to the line's end e), owned by a node indented ``ind``. */
static PyObject *inline_value(P *p, Py_ssize_t a, Py_ssize_t e, int ind) {
    const char *s = p->s;
    Py_ssize_t after;
    PyObject *v;
    switch (s[a]) {
    case '\'':
        v = single_quoted(p, a, e, ind, &after);
        break;
    case '"':
        v = double_quoted(p, a, e, ind, &after);
        break;
    case '|':
        return literal(p, a, e, ind);
    case '{':
    case '[':
        if (e - a != 2 || s[a + 1] != (s[a] == '{' ? '}' : ']')) return refuse(p);
        next_line(p, e);
        return s[a] == '{' ? PyDict_New() : PyList_New(0);
    default:
        return plain(p, a, e, ind);
    }
    if (!v) return NULL;
    /* nothing may follow a closing quote on its line */
    if (after != p->n && s[after] != '\n') { Py_DECREF(v); return refuse(p); }
    next_line(p, after);
    return v;
}

/* where a mapping key that starts at c ends: the ':' after it; -1 when the line is no entry */
static Py_ssize_t key_end(const char *s, Py_ssize_t c, Py_ssize_t e) {
    if (s[c] == '\'') {
        for (Py_ssize_t i = c + 1; i < e; i++) {
            if (s[i] != '\'') continue;
            if (i + 1 < e && s[i + 1] == '\'') { i++; continue; }
            return (i + 1 < e && s[i + 1] == ':' && (i + 2 == e || s[i + 2] == ' ')) ? i + 1 : -1;
        }
        return -1;
    }
    if (s[c] == '"') {
        for (Py_ssize_t i = c + 1; i < e; i++) {
            if (s[i] == '\\') { i++; continue; }
            if (s[i] != '"') continue;
            return (i + 1 < e && s[i + 1] == ':' && (i + 2 == e || s[i + 2] == ' ')) ? i + 1 : -1;
        }
        return -1;
    }
    for (Py_ssize_t i = c; i < e; i++)
        if (s[i] == ':' && (i + 1 == e || s[i + 1] == ' ')) return i;
    return -1;
}

static PyObject *mapping(P *p, int ind) {
    const char *s = p->s;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    while (!at_eof(p)) {
        Py_ssize_t c, e;
        int i = cur(p, &c, &e);
        if (i < ind) break;
        if (i > ind || c == e || seq_entry(s, c, e)) goto refused;
        Py_ssize_t k = key_end(s, c, e);
        if (k < 0) goto refused;
        PyObject *key;
        Py_ssize_t after;
        if (s[c] == '\'') {
            key = single_quoted(p, c, k, ind, &after);
        } else if (s[c] == '"') {
            key = double_quoted(p, c, k, ind, &after);
        } else {
            if (bad_plain_start(s + c, k - c) || !plain_line_ok(s + c, k - c)) goto refused;
            key = resolve_plain(p, s + c, k - c, 0);
        }
        if (!key) goto failed;
        PyObject *v;
        if (k + 1 == e) {                  /* "key:" and the value on the next lines */
            next_line(p, e);
            if (at_eof(p)) { v = Py_None; Py_INCREF(v); }
            else {
                Py_ssize_t c2, e2;
                int i2 = cur(p, &c2, &e2);
                if (i2 > ind) v = nested(p, node, i2);
                else if (i2 == ind && c2 < e2 && seq_entry(s, c2, e2)) v = nested(p, sequence, ind);
                else { v = Py_None; Py_INCREF(v); }
            }
        } else {
            Py_ssize_t a = k + 2;
            if (a >= e || s[a] == ' ') { Py_DECREF(key); goto refused; }
            v = inline_value(p, a, e, ind);
        }
        if (!v) { Py_DECREF(key); goto failed; }
        int r = PyDict_SetItem(d, key, v);
        Py_DECREF(key);
        Py_DECREF(v);
        if (r < 0) goto failed;
    }
    return d;
refused:
    p->refused = 1;
failed:
    Py_DECREF(d);
    return NULL;
}

static PyObject *sequence(P *p, int ind) {
    const char *s = p->s;
    PyObject *l = PyList_New(0);
    if (!l) return NULL;
    while (!at_eof(p)) {
        Py_ssize_t c, e;
        int i = cur(p, &c, &e);
        if (i < ind) break;
        if (i > ind || c == e) goto refused;
        if (!seq_entry(s, c, e)) break;    /* the mapping this sequence is a value of goes on */
        Py_ssize_t a = c + 2;
        if (a >= e || s[a] == ' ' || seq_entry(s, a, e)) goto refused;
        PyObject *item;
        if (key_end(s, a, e) >= 0) {       /* "- key: ...": a mapping indented two more */
            p->vstart = a;
            p->vind = ind + 2;
            item = nested(p, mapping, ind + 2);
        } else {
            item = inline_value(p, a, e, ind);
        }
        if (!item) goto failed;
        int r = PyList_Append(l, item);
        Py_DECREF(item);
        if (r < 0) goto failed;
    }
    return l;
refused:
    p->refused = 1;
failed:
    Py_DECREF(l);
    return NULL;
}

static PyObject *node(P *p, int ind) {
    Py_ssize_t c, e;
    cur(p, &c, &e);
    if (c == e) return refuse(p);
    return seq_entry(p->s, c, e) ? sequence(p, ind) : mapping(p, ind);
}

static PyObject *nested(P *p, PyObject *(*parse)(P *, int), int ind) {
    if (++p->depth > MAX_DEPTH) return refuse(p);
    PyObject *v = parse(p, ind);
    p->depth--;
    return v;
}

static PyObject *decode(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyUnicode_Check(arg)) { PyErr_SetString(PyExc_TypeError, "decode() takes a str"); return NULL; }
    if (!PyUnicode_IS_ASCII(arg)) Py_RETURN_NONE;
    P p = {0};
    p.s = (const char *)PyUnicode_DATA(arg);
    p.n = PyUnicode_GET_LENGTH(arg);
    p.vstart = -1;
    for (Py_ssize_t i = 0; i < p.n; i++) {
        unsigned char ch = (unsigned char)p.s[i];
        if ((ch < 0x20 && ch != '\n') || ch == 0x7f) Py_RETURN_NONE;
    }
    if (p.n == 0 || p.s[0] == ' ') Py_RETURN_NONE;
    p.cache = PyMem_Calloc(CACHE_SLOTS, sizeof(PyObject *));
    if (!p.cache) return PyErr_NoMemory();
    PyObject *doc = node(&p, 0);
    if (doc && !at_eof(&p)) { Py_DECREF(doc); doc = NULL; p.refused = 1; }
    for (int i = 0; i < CACHE_SLOTS; i++) Py_XDECREF(p.cache[i]);
    PyMem_Free(p.cache);
    PyMem_Free(p.buf);
    if (doc) return doc;
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef METHODS[] = {
    {"decode", decode, METH_O,
     "decode(text) -> the one block-style YAML document of text as PyYAML's safe loader reads it, "
     "or None when the text holds anything this decoder leaves to others."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "_blockyaml", NULL, -1, METHODS, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__blockyaml(void) { return PyModule_Create(&MODULE); }
