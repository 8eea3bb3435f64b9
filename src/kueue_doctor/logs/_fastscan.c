/* One pass over a run of zap JSON lines: each line's first message (the candidate scan), and
 * the frequent lines' strict shapes checked and their fields cut, as batch.py's operations.
 *
 * The shapes are scanner.py's regexes, written out as a parser that never backtracks: it accepts
 * a subset of what a regex accepts, with the same groups. Whatever it does not accept (another
 * shape, an escape, a control or non-ASCII byte, an error level, a conflict, an evaluation other
 * than "not nominated") goes back to Python as a span, which takes the per-line path at its place:
 * the per-line path gives the evidence the batch gives, so being stricter changes nothing. Every
 * literal comes from Python (configure(), built from kueue/logvocab.py); nothing is spelled here.
 * Every read of a line's fields is bounds-checked against the line's end, and the block pass's
 * (below, fs_scan) against the run's: malformed bytes are only ever "off shape".
 */
#define _GNU_SOURCE   /* memmem */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) || defined(_M_X64)
#define HAVE_VECTOR 1   /* SSE2, which every x86-64 has; AVX2 and AVX-512BW where the CPU has them */
#include <immintrin.h>
#endif

typedef struct { const char *p; Py_ssize_t n; } lit_t;

enum {
    L_MSGKEY, L_ERROR_PREFIX, L_CONFLICT, L_CUT, L_CYCLE_KEY, L_STATUS_KEY, L_ASSUMED, L_NOMINATED,
    L_BORROWING, L_LEVEL, L_TS, L_LOGGER, L_CALLER, L_MSG, L_ROLE, L_CYCLE, L_WL, L_NS_OPEN,
    L_CQ, L_PARENT, L_ROOT, L_ASSIGNMENTS, L_NAME_OPEN, L_FLAVORS, L_USAGE, L_COUNT, L_QUEUE,
    L_REQUEUE_REASON, L_ADDED, L_STATUS, L_REASON, L_DRS_VALUES, L_ITEM, L_ITEM_WL, L_ITEM_DRS,
    L_M_ADMITTED, L_M_REQUEUED, L_M_EVALUATED, L_M_DRS, L_SKIPPED, L_GENERIC, L_TRUE, L_FALSE,
    L_DURATION_KEY, L_M_ONGOING, L_M_ALREADY, L_TARGET, L_PREEMPTOR, L_OVERLAP, L_PREEMPTED, L_COUNT_OF
};
static const char *LIT_NAMES[L_COUNT_OF] = {
    "msgkey", "error_prefix", "conflict", "cut", "cycle_key", "status_key", "assumed", "nominated",
    "borrowing", "level", "ts", "logger", "caller", "msg", "role", "cycle", "wl", "ns_open",
    "cq", "parent", "root", "assignments", "name_open", "flavors", "usage", "count", "queue",
    "requeue_reason", "added", "status", "reason", "drs_values", "item", "item_wl", "item_drs",
    "m_admitted", "m_requeued", "m_evaluated", "m_drs", "skipped", "generic", "true", "false",
    "duration_key", "m_ongoing", "m_already", "target", "preemptor", "overlap", "preempted",
};

#define MAX_MESSAGES 64
#define MAX_LEVELS 8
#define MAX_EXCLUDED 8

static struct {
    int ready;
    PyObject *keep;              /* the config dict: keeps every literal alive */
    lit_t lit[L_COUNT_OF];
    int n_msgs;
    lit_t msgs[MAX_MESSAGES];    /* whole '"msg":"TEXT"' patterns, in the alternation's order */
    int msg_kind[MAX_MESSAGES];
    int bucketed;                /* every message has a byte after msgkey: ... */
    unsigned char bucket[257];   /* ... order[bucket[c]:bucket[c + 1]] those whose first is c, */
    unsigned char order[MAX_MESSAGES];   /* in the alternation's order */
    struct { lit_t n; int o[3]; unsigned char c[3]; } filt[3];   /* the scan's needles (N_MSG ...) */
    int reach;                   /* the farthest byte a needle's filter reads, from its start */
    int vector;                  /* the blocks' masks: 3 AVX-512BW, 2 AVX2, 1 SSE2, 0 byte by byte */
    uint64_t hash_mask;          /* all ones; the tests make every value collide with 0 */
    int n_levels;
    lit_t levels[MAX_LEVELS];    /* error levels, compared without case */
    int n_excluded;
    lit_t excluded[MAX_EXCLUDED];/* keys a DRS line's other fields may not have */
    int k_admitted, k_requeued, k_evaluated, k_drs, k_cycle, k_ongoing, k_already;
    int op_admit, op_requeue, op_not_nominated, op_drs_zero, op_ongoing, op_preemptor, op_assumed, op_skip,
        op_skip_target;
    int32_t no_cycle;            /* an OP_ONGOING's cycle column where the line has none */
    PyObject *ts_fallback;       /* scanner._ts */
    PyTypeObject *key_type;      /* keys.WorkloadKey: a tuple subclass without slots (fs_workload_keys) */
    Py_ssize_t keys_bound;       /* ops.KEYS_BOUND */
} C;

#define LIT(i) (C.lit[(i)])

/* --- growable arrays ------------------------------------------------------------------------ */

typedef struct { char *p; Py_ssize_t n, cap; } vec_t;

/* The scan's arrays and tables are PyMem_Raw*, which needs no GIL: the pass over a run holds
 * none (fs_scan), so -1 from here on means out of memory, raised once the GIL is back. */
static int vec_push(vec_t *v, const void *x, Py_ssize_t size) {
    if (v->n + size > v->cap) {
        Py_ssize_t cap = v->cap ? v->cap * 2 : 4096;
        while (cap < v->n + size) cap *= 2;
        char *p = PyMem_RawRealloc(v->p, (size_t)cap);
        if (p == NULL) return -1;
        v->p = p;
        v->cap = cap;
    }
    memcpy(v->p + v->n, x, (size_t)size);
    v->n += size;
    return 0;
}

static PyObject *vec_bytes(vec_t *v) {
    return PyBytes_FromStringAndSize(v->p ? v->p : "", v->n);
}

/* --- the parser's steps: each advances *p on success, leaves it anywhere on failure ------------ */

/* a[0:n] == b[0:n]: inline, as most literals are shorter than 32 bytes (memcmp's call costs more) */
static inline int eqn(const char *a, const char *b, Py_ssize_t n) {
    uint64_t x, y;
    if (n >= 8) {
        for (Py_ssize_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y) return 0;
        }
        memcpy(&x, a + n - 8, 8);   /* the last 8, overlapping the chunk before */
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {   /* the first 4 and the last 4 */
        uint32_t u, v;
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        if (u != v) return 0;
        memcpy(&u, a + n - 4, 4);
        memcpy(&v, b + n - 4, 4);
        return u == v;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static inline int lit(const char **p, const char *e, lit_t l) {
    if (e - *p < l.n || !eqn(*p, l.p, l.n)) return 0;
    *p += l.n;
    return 1;
}

static inline int ch(const char **p, const char *e, char c) {
    if (*p >= e || **p != c) return 0;
    (*p)++;
    return 1;
}

/* A value of [^"\\\x00-\x1f]* (ASCII only: the line was checked) and its closing quote. */
static inline int sq(const char **p, const char *e, const char **s, Py_ssize_t *n) {
    const char *q = *p;
    /* 8 bytes a step to the first that ends or spoils the value ('"', '\\', < 0x20): each test
     * flags every such byte, and may flag a byte above one (a borrow), never below the first, so
     * the lowest flag is that byte (little-endian: the lowest address; elsewhere the byte loop
     * below goes from the word's start) */
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
#if defined(HAVE_VECTOR)
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
    for (; e - q >= 16; q += 16) {   /* 16 a step first: the same bytes by SSE2 (< 0x20 unsigned) */
        __m128i v = _mm_loadu_si128((const __m128i *)q);
        unsigned t = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)), _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v)));
        if (t) {
            q += __builtin_ctz(t);
            goto bytes;
        }
    }
#endif
    for (; e - q >= 8; q += 8) {
        uint64_t x, y, z, t;
        memcpy(&x, q, 8);
        y = x ^ (ones * '"');
        z = x ^ (ones * '\\');
        t = (((y - ones) & ~y) | ((z - ones) & ~z) | ((x - ones * 0x20) & ~x)) & highs;
        if (t) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            q += __builtin_ctzll(t) >> 3;
#endif
            break;
        }
    }
#if defined(HAVE_VECTOR)
bytes:
#endif
    while (q < e) {
        unsigned char c = (unsigned char)*q;
        if (c == '"') {
            if (s) { *s = *p; *n = q - *p; }
            *p = q + 1;
            return 1;
        }
        if (c == '\\' || c < 0x20) return 0;
        q++;
    }
    return 0;
}

/* -?(0|[1-9][0-9]*) */
static inline int num(const char **p, const char *e) {
    const char *q = *p;
    if (q < e && *q == '-') q++;
    if (q >= e) return 0;
    if (*q == '0') q++;
    else if (*q >= '1' && *q <= '9') { while (q < e && *q >= '0' && *q <= '9') q++; }
    else return 0;
    *p = q;
    return 1;
}

/* _HEAD up to the message's text, the message, and _TAG; *cy the cycle's number, NULL if none
 * (where cy is given). */
static int head_cycle(const char **p, const char *e, lit_t message, const char **lv, Py_ssize_t *lvn,
                      const char **ts, Py_ssize_t *tsn, const char **cy, Py_ssize_t *cyn) {
    if (!lit(p, e, LIT(L_LEVEL)) || !sq(p, e, lv, lvn) || !lit(p, e, LIT(L_TS)) || !sq(p, e, ts, tsn)
        || !lit(p, e, LIT(L_LOGGER)) || !sq(p, e, NULL, NULL) || !lit(p, e, LIT(L_CALLER))
        || !sq(p, e, NULL, NULL) || !lit(p, e, LIT(L_MSG)) || !lit(p, e, message))
        return 0;
    if (lit(p, e, LIT(L_ROLE)) && !sq(p, e, NULL, NULL)) return 0;
    if (cy != NULL) *cy = NULL;
    if (lit(p, e, LIT(L_CYCLE))) {
        const char *c = *p;
        if (!num(p, e)) return 0;
        if (cy != NULL) { *cy = c; *cyn = *p - c; }
    }
    return 1;
}

static int head(const char **p, const char *e, lit_t message, const char **lv, Py_ssize_t *lvn,
                const char **ts, Py_ssize_t *tsn) {
    return head_cycle(p, e, message, lv, lvn, ts, tsn, NULL, NULL);
}

/* _WLCQ: the workload's name and namespace, the ClusterQueue. */
static int wlcq(const char **p, const char *e, const char **name, Py_ssize_t *namen, const char **ns,
                Py_ssize_t *nsn, const char **cq, Py_ssize_t *cqn) {
    return lit(p, e, LIT(L_WL)) && sq(p, e, name, namen) && lit(p, e, LIT(L_NS_OPEN)) && sq(p, e, ns, nsn)
           && ch(p, e, '}') && lit(p, e, LIT(L_CQ)) && sq(p, e, cq, cqn) && ch(p, e, '}');
}

/* _COHORT: an optional parent and an optional root, in that order. */
static int cohorts(const char **p, const char *e) {
    if (lit(p, e, LIT(L_PARENT)) && !(sq(p, e, NULL, NULL) && ch(p, e, '}'))) return 0;
    if (lit(p, e, LIT(L_ROOT)) && !(sq(p, e, NULL, NULL) && ch(p, e, '}'))) return 0;
    return 1;
}

/* _MAP: {} or {"k":"v"(,"k":"v")*} */
static int map(const char **p, const char *e) {
    if (!ch(p, e, '{')) return 0;
    if (ch(p, e, '}')) return 1;
    for (;;) {
        if (!ch(p, e, '"') || !sq(p, e, NULL, NULL) || !ch(p, e, ':') || !ch(p, e, '"') || !sq(p, e, NULL, NULL))
            return 0;
        if (ch(p, e, '}')) return 1;
        if (!ch(p, e, ',')) return 0;
    }
}

/* _ASSIGN */
static int assignment(const char **p, const char *e) {
    return lit(p, e, LIT(L_NAME_OPEN)) && sq(p, e, NULL, NULL) && lit(p, e, LIT(L_FLAVORS)) && map(p, e)
           && lit(p, e, LIT(L_USAGE)) && map(p, e) && lit(p, e, LIT(L_COUNT)) && num(p, e) && ch(p, e, '}');
}

static int is_error_level(const char *s, Py_ssize_t n) {
    for (int i = 0; i < C.n_levels; i++) {
        if (C.levels[i].n != n) continue;
        Py_ssize_t j = 0;
        while (j < n) {
            char c = s[j];
            if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
            if (c != C.levels[i].p[j]) break;
            j++;
        }
        if (j == n) return 1;
    }
    return 0;
}

/* The first needle in [hay, end): starts where its second and last bytes are in place (the
 * first of a key is a quote, everywhere in JSON), 16 a step by SSE2, each compared whole
 * (glibc's memmem took longer to set up than to search a line). */
static const char *find(const char *hay, const char *end, lit_t needle) {
    Py_ssize_t n = needle.n;
    if (end - hay < n) return NULL;
    if (n < 3) return memmem(hay, (size_t)(end - hay), needle.p, (size_t)n);
    const char *p = hay;
#if defined(HAVE_VECTOR)
    __m128i second = _mm_set1_epi8(needle.p[1]), last = _mm_set1_epi8(needle.p[n - 1]);
    for (; end - p >= n + 15; p += 16) {   /* the loads' last byte: p + n + 14 */
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 1)), second),
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + n - 1)), last)));
        for (; mask; mask &= mask - 1)
            if (eqn(p + __builtin_ctz(mask), needle.p, n)) return p + __builtin_ctz(mask);
    }
#endif
    for (; end - p >= n; p++)
        if (p[1] == needle.p[1] && eqn(p, needle.p, n)) return p;
    return NULL;
}

/* --- the state of one call ------------------------------------------------------------------- */

/* A table from a value's bytes (one or two pieces) to its id: the Python objects are made once
 * per distinct value, not once per line. A slot is one cache line holding the value's bytes
 * where they fit (else its table's own copy of them: their lengths, then them), so a lookup is
 * one miss, which the caller can start early (table_prefetch): comparing with the value's first
 * place in the buffer, read long before, was two misses a line. */
#define SLOT_BYTES 48
#define SLOT_FAR 0xFFFF          /* an, bn of a value kept in the table's bytes, at v's offset */
typedef struct { uint64_t h; int32_t id; uint16_t an, bn; char v[SLOT_BYTES]; } slot_t;
typedef struct { slot_t *s; void *raw; Py_ssize_t cap, n; vec_t bytes; } table_t;

/* 8 bytes a step (FNV's byte a step was a tenth of the scan); the lengths go in too, so "ab"+"c"
 * and "a"+"bc" differ (the slot compares both pieces anyway: a collision only costs time) */
static inline uint64_t hash_piece(uint64_t h, const char *s, Py_ssize_t n) {
    const uint64_t k = 0x9E3779B97F4A7C15ULL;
    uint64_t x;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&x, s, 8);
        h = (h ^ x) * k;
        h ^= h >> 29;
    }
    x = 0;
    memcpy(&x, s, (size_t)n);
    h = (h ^ x ^ ((uint64_t)n << 56)) * k;
    return h ^ (h >> 32);
}

static inline uint64_t hash2(const char *a, Py_ssize_t an, const char *b, Py_ssize_t bn) {
    return hash_piece(hash_piece(0x243F6A8885A308D3ULL ^ (uint64_t)an, a, an), b, bn) & C.hash_mask;
}

static inline void table_prefetch(const table_t *t, uint64_t h) {
    if (t->cap) __builtin_prefetch(&t->s[h & (uint64_t)(t->cap - 1)]);
}

static int table_grow(table_t *t) {
    Py_ssize_t cap = t->cap ? t->cap * 2 : 256;
    void *raw = PyMem_RawMalloc((size_t)cap * sizeof(slot_t) + 64);
    if (raw == NULL) return -1;
    slot_t *s = (slot_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);   /* a slot a cache line */
    for (Py_ssize_t i = 0; i < cap; i++) s[i].id = -1;
    for (Py_ssize_t i = 0; i < t->cap; i++) {
        if (t->s[i].id < 0) continue;
        Py_ssize_t j = (Py_ssize_t)(t->s[i].h & (uint64_t)(cap - 1));
        while (s[j].id >= 0) j = (j + 1) & (cap - 1);
        s[j] = t->s[i];
    }
    PyMem_RawFree(t->raw);
    t->raw = raw;
    t->s = s;
    t->cap = cap;
    return 0;
}

/* The slot of the value (h its hash2): found (its id >= 0) or empty (id -1), to be filled by the caller. */
static slot_t *table_slot_h(table_t *t, uint64_t h, const char *a, Py_ssize_t an, const char *b, Py_ssize_t bn) {
    if (2 * (t->n + 1) > t->cap && table_grow(t) < 0) return NULL;
    int near = an + bn <= SLOT_BYTES;
    Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(t->cap - 1));
    for (;;) {
        slot_t *x = &t->s[j];
        if (x->id < 0) {
            x->h = h;
            if (near) {
                x->an = (uint16_t)an;
                x->bn = (uint16_t)bn;
                memcpy(x->v, a, (size_t)an);
                memcpy(x->v + an, b, (size_t)bn);
            } else {
                Py_ssize_t off = t->bytes.n;
                x->an = x->bn = SLOT_FAR;
                memcpy(x->v, &off, sizeof off);
                if (vec_push(&t->bytes, &an, sizeof an) < 0 || vec_push(&t->bytes, &bn, sizeof bn) < 0
                    || vec_push(&t->bytes, a, an) < 0 || vec_push(&t->bytes, b, bn) < 0)
                    return NULL;
            }
            t->n++;
            return x;
        }
        if (x->h == h) {
            if (near) {
                if (x->an == an && x->bn == bn && eqn(x->v, a, an) && eqn(x->v + an, b, bn)) return x;
            } else if (x->an == SLOT_FAR) {
                Py_ssize_t off, vn[2];
                memcpy(&off, x->v, sizeof off);
                const char *v = t->bytes.p + off;
                memcpy(vn, v, sizeof vn);
                v += sizeof vn;
                if (vn[0] == an && vn[1] == bn && eqn(v, a, an) && eqn(v + an, b, bn)) return x;
            }
        }
        j = (j + 1) & (t->cap - 1);
    }
}

static slot_t *table_slot(table_t *t, const char *a, Py_ssize_t an, const char *b, Py_ssize_t bn) {
    return table_slot_h(t, hash2(a, an, b, bn), a, an, b, bn);
}

/* What the pass found that becomes Python objects once it is over (fs_scan: the pass holds no
 * GIL): spans of the buffer, which outlives the call. */
typedef struct { const char *p; Py_ssize_t n; } span_t;
/* an < 0: ("", ""); h: hash2 of the two pieces (the KEYS table's hash of the pair, keys_list) */
typedef struct { const char *a; Py_ssize_t an; const char *b; Py_ssize_t bn; uint64_t h; } pair_t;
typedef struct { int64_t start, end; int32_t kind; } rest_t;
typedef struct { int64_t op; int32_t k; } fix_t;   /* the op's time is fallback k's */

typedef struct {
    table_t t_text, t_pair, t_wltext;
    vec_t code, place, sub, ts, cq, wl, aux;
    vec_t dur_place, dur;        /* the cycles' durations the run's lines give, at their places */
    vec_t texts, keys, extras;   /* span_t, pair_t, span_t: the string and workload tables, raw lines */
    vec_t rest;                  /* rest_t: the candidate lines left to Python */
    vec_t late, fixes;           /* span_t, fix_t: the times scanner._ts reads, and the ops that have them */
    vec_t dur_text;              /* span_t: each duration's text (float() reads them, with the GIL) */
    int32_t n_texts, n_keys;
    int32_t late_k;              /* the line in hand's fallback time, -1 if its time is read */
    int overflow;                /* too many raw lines: OverflowError, not MemoryError */
    Py_ssize_t n_seen;
    double lo, hi;
    char last_head[19];
    int have_head;
    double last_base;
} state_t;

/* The slots of a run's three tables, kept for the next run (of any thread): a run's tables grow
 * to about the size the last one's did, and new memory each run meant its page faults, and the
 * growing and rehashing again, about a tenth of the scan's time. Taken at a run's start and
 * given back at its end, both with the GIL held, which is what serializes them. */
#define POOLED 4
static struct { void *raw; slot_t *s; Py_ssize_t cap; } POOL[3][POOLED];
static int N_POOLED[3];

static void table_adopt(table_t *t, int kind) {
    if (N_POOLED[kind] == 0) return;
    int k = --N_POOLED[kind];
    t->raw = POOL[kind][k].raw;
    t->s = POOL[kind][k].s;
    t->cap = POOL[kind][k].cap;
    for (Py_ssize_t i = 0; i < t->cap; i++) t->s[i].id = -1;
}

static void table_release(table_t *t, int kind) {
    if (t->raw != NULL && N_POOLED[kind] < POOLED) {
        int k = N_POOLED[kind]++;
        POOL[kind][k].raw = t->raw;
        POOL[kind][k].s = t->s;
        POOL[kind][k].cap = t->cap;
    } else {
        PyMem_RawFree(t->raw);
    }
    PyMem_RawFree(t->bytes.p);
}

static void state_free(state_t *st) {
    vec_t *v[] = {&st->code, &st->place, &st->sub, &st->ts, &st->cq, &st->wl, &st->aux, &st->dur_place, &st->dur,
                  &st->texts, &st->keys, &st->extras, &st->rest, &st->late, &st->fixes, &st->dur_text};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) PyMem_RawFree(v[i]->p);
    table_t *t[] = {&st->t_text, &st->t_pair, &st->t_wltext};
    for (int i = 0; i < 3; i++) table_release(t[i], i);
}

/* A fresh slot's id: the next of its table's (``*count``), its value ``x`` (``size`` bytes)
 * appended to ``values``; -1 when out of memory. */
static int32_t fill(slot_t *slot, int32_t *count, vec_t *values, const void *x, Py_ssize_t size) {
    if (*count == INT32_MAX || vec_push(values, x, size) < 0) { slot->id = -1; return -1; }
    slot->id = (*count)++;
    return slot->id;
}

/* The id of a text in the string table (decoded later: the line is ASCII). */
static int32_t text_id(state_t *st, const char *s, Py_ssize_t n) {
    slot_t *x = table_slot(&st->t_text, s, n, "", 0);
    if (x == NULL) return -1;
    if (x->id >= 0) return x->id;
    span_t v = {s, n};
    return fill(x, &st->n_texts, &st->texts, &v, sizeof v);
}

/* batch._workload: (namespace, name) as str, ("", "") when either is empty; h: the pair's hash2,
 * which the caller took, and prefetched its slot, as soon as it had read the pair */
static int32_t pair_id(state_t *st, uint64_t h, const char *ns, Py_ssize_t nsn, const char *name, Py_ssize_t namen) {
    slot_t *x = table_slot_h(&st->t_pair, h, ns, nsn, name, namen);
    if (x == NULL) return -1;
    if (x->id >= 0) return x->id;
    pair_t v = {ns, (nsn == 0 || namen == 0) ? -1 : nsn, name, namen, h};
    return fill(x, &st->n_keys, &st->keys, &v, sizeof v);
}

/* batch._workload_text of a DRS item's "ns/name": WorkloadKey.parse, one '/' between a
 * namespace and a name, neither empty; ("", "") otherwise (the line is ASCII: its bytes are its
 * characters, so no decoding is involved) */
static int32_t wltext_id(state_t *st, const char *s, Py_ssize_t n) {
    slot_t *x = table_slot(&st->t_wltext, s, n, "", 0);
    if (x == NULL) return -1;
    if (x->id >= 0) return x->id;
    const char *slash = memchr(s, '/', (size_t)n);
    Py_ssize_t nsn = slash == NULL ? 0 : slash - s, namen = slash == NULL ? 0 : n - nsn - 1;
    int empty = nsn == 0 || namen == 0 || memchr(slash + 1, '/', (size_t)namen) != NULL;
    pair_t v = {s, empty ? -1 : nsn, empty ? s : slash + 1, namen, empty ? 0 : hash2(s, nsn, slash + 1, namen)};
    return fill(x, &st->n_keys, &st->keys, &v, sizeof v);
}

static const double POW10[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

static inline int digits2(const char *s, int *v) {
    if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9') return 0;
    *v = (s[0] - '0') * 10 + (s[1] - '0');
    return 1;
}

/* batch._base of a whole second "YYYY-MM-DDTHH:MM:SS" in the form timeparse._second reads
 * itself: the datetime it makes (year 1-9999, a real day, 00-23, 00-59, 00-59) as UTC seconds,
 * which a double holds exactly. 0 for anything else, whose line scanner._ts reads. */
static int strict_base(const char *s, double *out) {
    int c, y, mo, d, h, mi, se;
    if (s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || !digits2(s, &c)
        || !digits2(s + 2, &y) || !digits2(s + 5, &mo) || !digits2(s + 8, &d) || !digits2(s + 11, &h)
        || !digits2(s + 14, &mi) || !digits2(s + 17, &se))
        return 0;
    y += 100 * c;
    static const int MDAYS[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > MDAYS[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 || se > 59)
        return 0;
    /* days from 1970-01-01 of the proleptic Gregorian date (the civil-from-days inverse) */
    int64_t yy = mo <= 2 ? y - 1 : y;
    int64_t era = yy / 400, yoe = yy - era * 400;   /* yy >= 0 */
    int64_t doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
    int64_t days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    *out = (double)(days * 86400 + h * 3600 + mi * 60 + se);
    return 1;
}

/* scanner._ts with its arithmetic (batch.times'): 0, the time in *out; or the line's time is
 * one scanner._ts reads once the pass is over (st->late_k, *out NaN until then); -1: out of memory */
static int parse_time(state_t *st, const char *s, Py_ssize_t n, double *out) {
    st->late_k = -1;
    if (n > 21 && n < 31 && s[19] == '.' && s[n - 1] == 'Z') {
        int64_t frac = 0;
        Py_ssize_t m = n - 21, i;
        for (i = 20; i < n - 1; i++) {
            if (s[i] < '0' || s[i] > '9') break;
            frac = frac * 10 + (s[i] - '0');
        }
        if (i == n - 1) {
            if (!st->have_head || !eqn(st->last_head, s, 19)) {
                if (!strict_base(s, &st->last_base)) st->last_base = NAN;
                memcpy(st->last_head, s, 19);
                st->have_head = 1;
            }
            if (!isnan(st->last_base)) {
                *out = st->last_base + (double)frac / POW10[m];
                return 0;
            }
        }
    }
    span_t v = {s, n};
    Py_ssize_t k = st->late.n / (Py_ssize_t)sizeof v;
    if (k >= INT32_MAX || vec_push(&st->late, &v, sizeof v) < 0) return -1;
    st->late_k = (int32_t)k;
    *out = NAN;
    return 0;
}

/* x appended to v, whose room the caller made (emit: every column grows when the codes' does) */
#define PUT(v, x) (memcpy((v).p + (v).n, &(x), sizeof(x)), (v).n += (Py_ssize_t)sizeof(x))

/* an operation's columns appended as they are (emit checks the ids first) */
static int emit_op(state_t *st, int8_t code, int64_t place, int32_t sub, double ts, int32_t cq, int32_t wl,
                   int32_t aux) {
    if (st->code.n == st->code.cap) {   /* twice the room (4096 at first) in each column */
        vec_t *v[] = {&st->code, &st->place, &st->sub, &st->ts, &st->cq, &st->wl, &st->aux};
        Py_ssize_t size[] = {1, 8, 4, 8, 4, 4, 4}, ops = st->code.n ? 2 * st->code.n : 4096;
        for (int i = 0; i < 7; i++) {
            char *p = PyMem_RawRealloc(v[i]->p, (size_t)(ops * size[i]));
            if (p == NULL) return -1;
            v[i]->p = p;
            v[i]->cap = ops * size[i];
        }
    }
    if (st->late_k >= 0) {   /* its time comes later (parse_time) */
        fix_t f = {st->code.n, st->late_k};
        if (vec_push(&st->fixes, &f, sizeof f) < 0) return -1;
    }
    PUT(st->code, code);
    PUT(st->place, place);
    PUT(st->sub, sub);
    PUT(st->ts, ts);
    PUT(st->cq, cq);
    PUT(st->wl, wl);
    PUT(st->aux, aux);
    return 0;
}
#undef PUT

static int emit(state_t *st, int8_t code, int64_t place, int32_t sub, double ts, int32_t cq, int32_t wl,
                int32_t aux) {
    if (cq < 0 || wl < 0 || aux < 0) return -1;   /* an interning error */
    return emit_op(st, code, place, sub, ts, cq, wl, aux);
}

static void seen(state_t *st, double ts) {   /* (a late time's bounds: fs_scan, when it is read) */
    st->n_seen++;
    if (!isnan(ts)) {
        if (ts < st->lo) st->lo = ts;
        if (ts > st->hi) st->hi = ts;
    }
}

/* a line is taken: its time parsed and counted among the run's (0), or a Python error (-1) */
static int taken_at(state_t *st, const char *ts, Py_ssize_t tsn, double *t) {
    if (parse_time(st, ts, tsn, t) < 0) return -1;
    seen(st, *t);
    return 0;
}

/* --- the frequent lines ----------------------------------------------------------------------- */

/* 1: taken, 0: off the shape (the per-line path reads it), -1: a Python error */
static int take_admitted(state_t *st, const char *ls, const char *e, int64_t place) {
    const char *p = ls, *lv, *ts, *name, *ns, *cq;
    Py_ssize_t lvn, tsn, namen, nsn, cqn;
    if (!head(&p, e, LIT(L_M_ADMITTED), &lv, &lvn, &ts, &tsn) || !wlcq(&p, e, &name, &namen, &ns, &nsn, &cq, &cqn))
        return 0;
    uint64_t wh = hash2(ns, nsn, name, namen);
    table_prefetch(&st->t_pair, wh);
    if (!cohorts(&p, e) || !lit(&p, e, LIT(L_ASSIGNMENTS))) return 0;
    if (!ch(&p, e, ']')) {
        for (;;) {
            if (!assignment(&p, e)) return 0;
            if (ch(&p, e, ']')) break;
            if (!ch(&p, e, ',')) return 0;
        }
    }
    if (!ch(&p, e, '}') || p != e || is_error_level(lv, lvn)) return 0;
    double t;
    if (taken_at(st, ts, tsn, &t) < 0) return -1;
    return emit(st, (int8_t)C.op_admit, place, 0, t, text_id(st, cq, cqn), pair_id(st, wh, ns, nsn, name, namen), 0)
           < 0 ? -1 : 1;
}

static int take_requeued(state_t *st, const char *ls, const char *e, int64_t place) {
    const char *p = ls, *lv, *ts, *name, *ns, *cq, *reason, *status;
    Py_ssize_t lvn, tsn, namen, nsn, cqn, reasonn, statusn;
    if (!head(&p, e, LIT(L_M_REQUEUED), &lv, &lvn, &ts, &tsn) || !wlcq(&p, e, &name, &namen, &ns, &nsn, &cq, &cqn))
        return 0;
    uint64_t wh = hash2(ns, nsn, name, namen);
    table_prefetch(&st->t_pair, wh);
    if (!lit(&p, e, LIT(L_QUEUE)) || !sq(&p, e, NULL, NULL)) return 0;
    if (lit(&p, e, LIT(L_NS_OPEN)) && !sq(&p, e, NULL, NULL)) return 0;
    if (!ch(&p, e, '}') || !lit(&p, e, LIT(L_REQUEUE_REASON)) || !sq(&p, e, &reason, &reasonn)
        || !lit(&p, e, LIT(L_ADDED)) || !(lit(&p, e, LIT(L_TRUE)) || lit(&p, e, LIT(L_FALSE)))
        || !lit(&p, e, LIT(L_STATUS)) || !sq(&p, e, &status, &statusn) || !ch(&p, e, '}') || p != e
        || is_error_level(lv, lvn))
        return 0;
    /* a head skipped in its cycle waits on another head's preemption (scanner._fast) */
    if (statusn == LIT(L_SKIPPED).n && memcmp(status, LIT(L_SKIPPED).p, (size_t)statusn) == 0) {
        reason = LIT(L_SKIPPED).p;
        reasonn = LIT(L_SKIPPED).n;
    } else if (reasonn == 0) {
        reason = LIT(L_GENERIC).p;
        reasonn = LIT(L_GENERIC).n;
    }
    double t;
    if (taken_at(st, ts, tsn, &t) < 0) return -1;
    return emit(st, (int8_t)C.op_requeue, place, 0, t, text_id(st, cq, cqn), pair_id(st, wh, ns, nsn, name, namen),
                text_id(st, reason, reasonn)) < 0 ? -1 : 1;
}

/* reader._BORROWING.search over [p, e): the first "Borrowing": followed by a digit; 1 when its
 * digits are not all zeros (int() of them > 0), 0 otherwise or without one. */
static int borrowing_positive(const char *p, const char *e) {
    lit_t key = LIT(L_BORROWING);
    for (;;) {
        const char *q = find(p, e, key);
        if (q == NULL) return 0;
        q += key.n;   /* (the key cannot overlap itself: the next one starts after it) */
        if (q < e && *q >= '0' && *q <= '9') {
            for (; q < e && *q >= '0' && *q <= '9'; q++)
                if (*q != '0') return 1;
            return 0;
        }
        p = q;
    }
}

static int cycle_of(const char *s, Py_ssize_t n, int32_t *out);   /* below, with the victims' lines */
static int raw_line(state_t *st, const char *ls, const char *e);

#define MAX_TARGETS 256

/* An overlap skip's targets (scanner._fast: json.loads after the blob's last "preempted" key, up
 * to the line's closing brace) where they are a plain list of {"name":"…","namespace":"…"}: their
 * count (none without the key), or -1 for anything else (the per-line path's). */
static int skip_targets(const char *extra, const char *e, const char **tn, Py_ssize_t *tnn, const char **tns,
                        Py_ssize_t *tnsn) {
    const char *tail = NULL, *q = extra, *p;
    while ((q = find(q, e, LIT(L_PREEMPTED))) != NULL) {
        tail = q;
        q += LIT(L_PREEMPTED).n;
    }
    if (tail == NULL) return 0;
    p = tail + LIT(L_PREEMPTED).n;
    int n = 0;
    if (!ch(&p, e, '[')) return -1;
    if (!ch(&p, e, ']')) {
        for (;;) {
            if (n == MAX_TARGETS || !lit(&p, e, LIT(L_NAME_OPEN)) || !sq(&p, e, &tn[n], &tnn[n])
                || !lit(&p, e, LIT(L_NS_OPEN)) || !sq(&p, e, &tns[n], &tnsn[n]) || !ch(&p, e, '}'))
                return -1;
            n++;
            if (ch(&p, e, ']')) break;
            if (!ch(&p, e, ',')) return -1;
        }
    }
    return ch(&p, e, '}') && p == e ? n : -1;
}

static int take_evaluated(state_t *st, const char *ls, const char *e, int64_t place) {
    const char *p = ls, *lv, *ts, *name, *ns, *cq, *status, *reason, *cy;
    Py_ssize_t lvn, tsn, namen, nsn, cqn, statusn, reasonn, cyn = 0;
    if (!head_cycle(&p, e, LIT(L_M_EVALUATED), &lv, &lvn, &ts, &tsn, &cy, &cyn)
        || !wlcq(&p, e, &name, &namen, &ns, &nsn, &cq, &cqn))
        return 0;
    uint64_t wh = hash2(ns, nsn, name, namen);
    table_prefetch(&st->t_pair, wh);
    if (!lit(&p, e, LIT(L_STATUS)) || !sq(&p, e, &status, &statusn) || !lit(&p, e, LIT(L_REASON))
        || !sq(&p, e, &reason, &reasonn))
        return 0;
    /* "not nominated" (no status), or "assumed" (scanner._is_assumed: its borrowing in the blob) */
    int assumed = statusn == LIT(L_ASSUMED).n - 1 && eqn(status, LIT(L_ASSUMED).p, statusn);
    /* or "skipped" for overlapping targets (Evidence.evaluated's overlap skip) */
    int skip = statusn == LIT(L_SKIPPED).n && eqn(status, LIT(L_SKIPPED).p, statusn)
               && find(reason, reason + reasonn, LIT(L_OVERLAP)) != NULL;
    if ((statusn != 0 && !assumed && !skip) || is_error_level(lv, lvn)) return 0;
    /* its end, or the V(4) blob (read no further, but a cycle's key in it is cycle_duration's) */
    const char *extra = p;
    int blob = !(e - p == 1 && *p == '}');
    if (blob) {
        if (!lit(&p, e, LIT(L_CUT)) || find(extra, e, LIT(L_CYCLE_KEY)) != NULL) return 0;
    }
    if (skip) {   /* an OP_SKIP (sub 0), then an OP_SKIP_TARGET a target, the cycle in its cq column */
        const char *tn[MAX_TARGETS], *tns[MAX_TARGETS];
        Py_ssize_t tnn[MAX_TARGETS], tnsn[MAX_TARGETS];
        int32_t cycle = C.no_cycle;
        int n = blob ? skip_targets(extra, e, tn, tnn, tns, tnsn) : 0;
        if (n < 0 || (cy != NULL && !cycle_of(cy, cyn, &cycle))) return 0;
        double t;
        if (taken_at(st, ts, tsn, &t) < 0) return -1;
        int x = raw_line(st, ls, e);
        if (x < 0 || emit(st, (int8_t)C.op_skip, place, 0, t, text_id(st, cq, cqn), pair_id(st, wh, ns, nsn, name, namen), x) < 0)
            return -1;
        for (int i = 0; i < n; i++) {
            int32_t target = pair_id(st, hash2(tns[i], tnsn[i], tn[i], tnn[i]), tns[i], tnsn[i], tn[i], tnn[i]);
            if (target < 0 || emit_op(st, (int8_t)C.op_skip_target, place, i + 1, t, cycle, target, 0) < 0) return -1;
        }
        return 1;
    }
    double t;
    if (taken_at(st, ts, tsn, &t) < 0) return -1;
    if (assumed)   /* Evidence.evaluated of an assumed workload: borrowing > 0 marks its queue */
        return emit(st, (int8_t)C.op_assumed, place, 0, t, text_id(st, cq, cqn), pair_id(st, wh, ns, nsn, name, namen),
                    blob && borrowing_positive(extra, e)) < 0 ? -1 : 1;
    return emit(st, (int8_t)C.op_not_nominated, place, 0, t, text_id(st, cq, cqn), pair_id(st, wh, ns, nsn, name, namen),
                text_id(st, reason, reasonn)) < 0 ? -1 : 1;
}

/* [1-9][0-9]*(\.[0-9]+)? the whole value */
static int canonical_nonzero(const char *s, Py_ssize_t n) {
    Py_ssize_t i = 0;
    if (n == 0 || s[0] < '1' || s[0] > '9') return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == n) return 1;
    if (s[i] != '.' || i + 1 == n) return 0;
    for (i++; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* _FIELD: ,"key":"value" or ,"key":{"name":"…"(,"namespace":"…")?}, key [A-Za-z-]+ not excluded */
static int field(const char **p, const char *e) {
    if (!ch(p, e, ',') || !ch(p, e, '"')) return 0;
    const char *k = *p;
    /* [A-Za-z-]: c | 0x20 is in a..z exactly where c is a letter */
    while (*p < e && ((unsigned)((**p | 0x20) - 'a') < 26u || **p == '-')) (*p)++;
    Py_ssize_t kn = *p - k;
    if (kn == 0) return 0;
    for (int i = 0; i < C.n_excluded; i++)
        if (C.excluded[i].n == kn && eqn(C.excluded[i].p, k, kn)) return 0;
    if (!ch(p, e, '"') || !ch(p, e, ':')) return 0;
    if (ch(p, e, '"')) return sq(p, e, NULL, NULL);
    if (!lit(p, e, LIT(L_NAME_OPEN)) || !sq(p, e, NULL, NULL)) return 0;
    if (lit(p, e, LIT(L_NS_OPEN)) && !sq(p, e, NULL, NULL)) return 0;
    return ch(p, e, '}');
}

#define MAX_ZERO 4096

static int take_drs(state_t *st, const char *ls, const char *e, int64_t place) {
    const char *p = ls, *lv, *ts;
    Py_ssize_t lvn, tsn;
    if (!head(&p, e, LIT(L_M_DRS), &lv, &lvn, &ts, &tsn)) return 0;
    while (!lit(&p, e, LIT(L_DRS_VALUES)))
        if (!field(&p, e)) return 0;
    /* the zero shares' workloads, in order (a line with more than MAX_ZERO: the per-line path) */
    const char *zw[MAX_ZERO];
    Py_ssize_t zn[MAX_ZERO];
    int nz = 0;
    if (!ch(&p, e, ']')) {
        for (;;) {
            const char *w, *d;
            Py_ssize_t wn, dn;
            if (!lit(&p, e, LIT(L_ITEM)) || !sq(&p, e, NULL, NULL) || !lit(&p, e, LIT(L_ITEM_WL))
                || !sq(&p, e, &w, &wn) || !lit(&p, e, LIT(L_ITEM_DRS)) || !sq(&p, e, &d, &dn) || !ch(&p, e, '}'))
                return 0;
            if (dn == 1 && d[0] == '0') {
                if (nz == MAX_ZERO) return 0;
                zw[nz] = w;
                zn[nz] = wn;
                nz++;
            } else if (!canonical_nonzero(d, dn)) {
                return 0;
            }
            if (ch(&p, e, ']')) break;
            if (!ch(&p, e, ',')) return 0;
        }
    }
    if (!ch(&p, e, '}') || p != e || is_error_level(lv, lvn)) return 0;
    double t;
    if (taken_at(st, ts, tsn, &t) < 0) return -1;
    if (nz) {
        int x = raw_line(st, ls, e);
        if (x < 0) return -1;
        for (int i = 0; i < nz; i++)
            if (emit(st, (int8_t)C.op_drs_zero, place, i, t, 0, wltext_id(st, zw[i], zn[i]), (int32_t)x) < 0)
                return -1;
    }
    return 1;
}

/* A cycle's number -?(0|[1-9][0-9]*) (num() checked it) as an int32 other than the no-cycle
 * mark (batch.NO_CYCLE): 1, or 0 for a number outside, which the per-line path reads. */
static int cycle_of(const char *s, Py_ssize_t n, int32_t *out) {
    int neg = n > 0 && s[0] == '-';
    if (n - neg < 1 || n - neg > 10) return 0;
    int64_t v = 0;
    for (Py_ssize_t i = neg; i < n; i++) v = v * 10 + (s[i] - '0');
    if (neg) v = -v;
    if (v <= (int64_t)C.no_cycle || v > INT32_MAX) return 0;
    *out = (int32_t)v;
    return 1;
}

/* The line [ls, e) appended to the run's extras (the examples' raw lines): its index, or -1. */
static int raw_line(state_t *st, const char *ls, const char *e) {
    span_t v = {ls, e - ls};
    Py_ssize_t x = st->extras.n / (Py_ssize_t)sizeof v;
    if (x >= INT32_MAX) { st->overflow = 1; return -1; }
    return vec_push(&st->extras, &v, sizeof v) < 0 ? -1 : (int)x;
}

/* scanner._ONGOING_LINE, a victim's "Preemption ongoing" or "... already issued": an
 * OP_PREEMPTOR (sub 0: the preemptor's workload) and an OP_ONGOING (sub 1: the target's, its
 * cycle in the cq column, its raw line in extras for the examples) at the line's place, the
 * replay's Evidence.ongoing. The per-workload keys before the target (_PER_WORKLOAD) are matched,
 * not read. */
static int take_ongoing(state_t *st, const char *ls, const char *e, int64_t place, lit_t message) {
    const char *p = ls, *lv, *ts, *cy, *tname, *tns, *pname, *pns, *q;
    Py_ssize_t lvn, tsn, cyn = 0, tnamen, tnsn, pnamen, pnsn;
    if (!head_cycle(&p, e, message, &lv, &lvn, &ts, &tsn, &cy, &cyn)) return 0;
    q = p;
    if (lit(&q, e, LIT(L_WL))) {
        const char *s;
        Py_ssize_t sn;
        if (!wlcq(&p, e, &s, &sn, &s, &sn, &s, &sn) || !cohorts(&p, e)) return 0;
    }
    if (!lit(&p, e, LIT(L_TARGET)) || !sq(&p, e, &tname, &tnamen) || !lit(&p, e, LIT(L_NS_OPEN))
        || !sq(&p, e, &tns, &tnsn) || !ch(&p, e, '}') || !lit(&p, e, LIT(L_PREEMPTOR)) || !sq(&p, e, &pname, &pnamen)
        || !lit(&p, e, LIT(L_NS_OPEN)) || !sq(&p, e, &pns, &pnsn) || !ch(&p, e, '}') || !ch(&p, e, '}') || p != e
        || is_error_level(lv, lvn))
        return 0;
    int32_t cycle = C.no_cycle;
    if (cy != NULL && !cycle_of(cy, cyn, &cycle)) return 0;
    double t;
    if (taken_at(st, ts, tsn, &t) < 0) return -1;
    int x = raw_line(st, ls, e);
    if (x < 0) return -1;
    int32_t preemptor = pair_id(st, hash2(pns, pnsn, pname, pnamen), pns, pnsn, pname, pnamen);
    int32_t target = preemptor < 0 ? -1 : pair_id(st, hash2(tns, tnsn, tname, tnamen), tns, tnsn, tname, tnamen);
    if (target < 0) return -1;
    return emit_op(st, (int8_t)C.op_preemptor, place, 0, t, 0, preemptor, 0) < 0
           || emit_op(st, (int8_t)C.op_ongoing, place, 1, t, cycle, target, (int32_t)x) < 0 ? -1 : 1;
}

/* signatures.cycle_duration of a cycle's line, where its text is a JSON number: the bytes after
 * the first duration key up to the next '}' read as float() reads them (PyOS_string_to_double is what float() ends in;
 * on a JSON number nothing float() adds, spaces or underscores, can occur). 1: taken, 0: not
 * (Python reads the line), -1: a Python error. A cycle's line counts no time (_general). */
static int take_cycle(state_t *st, const char *ls, const char *e, int64_t place) {
    const char *p = find(ls, e, LIT(L_DURATION_KEY));
    if (p == NULL) return 0;
    /* a '}' always follows: the line is "{...}" (the others are odd lines, read in Python) */
    const char *s = p + LIT(L_DURATION_KEY).n, *q = memchr(s, '}', (size_t)(e - s));
    if (q == NULL || q <= s || q - s > 40) return 0;
    const char *x = s;
    if (!num(&x, q)) return 0;
    if (x < q && *x == '.') {
        const char *f = ++x;
        while (x < q && *x >= '0' && *x <= '9') x++;
        if (x == f) return 0;
    }
    if (x < q && (*x == 'e' || *x == 'E')) {
        x++;
        if (x < q && (*x == '+' || *x == '-')) x++;
        const char *d = x;
        while (x < q && *x >= '0' && *x <= '9') x++;
        if (x == d) return 0;
    }
    if (x != q) return 0;
    span_t text = {s, q - s};   /* read by float()'s own function with the GIL (late_read) */
    return (vec_push(&st->dur_place, &place, 8) < 0 || vec_push(&st->dur_text, &text, sizeof text) < 0) ? -1 : 1;
}

/* scanner._keep_evaluated: plain admissions and nominations change no evidence. Its
 * startswith() is bounded by the whole buffer (``hi``), not the line, its searches by the line. */
static int keep_evaluated(const char *m, const char *e, const char *hi) {
    const char *p = find(m, e, LIT(L_STATUS_KEY));
    if (p == NULL) return 1;
    p += LIT(L_STATUS_KEY).n;
    const char *q = p;
    if (!lit(&q, hi, LIT(L_ASSUMED))) return !lit(&q, hi, LIT(L_NOMINATED));
    p = find(p, e, LIT(L_BORROWING));
    /* the byte after the key: the line's newline at the latest, which is not '0' */
    return p != NULL && !(p + LIT(L_BORROWING).n < e && p[LIT(L_BORROWING).n] == '0');
}

/* A run being scanned, and its line in hand. */
typedef struct {
    state_t *st;
    const char *base, *hi, *end;   /* the buffer, the run's end, the buffer's end */
    const char *ls, *at;           /* the line's start, its first message's */
    int kind, high, conflict;      /* the message's kind (0: none yet), a byte >= 0x80, the conflict text */
    int conflicts;                 /* the conflict text anywhere in the run */
    Py_ssize_t lines;
    int odd_stop;                  /* the run ends at the first line that is not "{...}" (walk()) */
    Py_ssize_t longest;            /* there: the longest of the run's lines, without its newline */
} run_t;

/* candidates.Hits.odd's test of the line [ls, le): empty, or not "{...}" */
static inline int odd_line(const char *ls, const char *le) {
    return le == ls || *ls != '{' || le[-1] != '}';
}

/* The line [r->ls, le) seen whole: taken, or its span left to Python. 0, -1: a Python error, or
 * 2 where the run stops before it (r->odd_stop and an odd line). */
static int line_done(run_t *r, const char *le) {
    int kind = r->kind;
    const char *ls = r->ls;
    if (r->odd_stop) {
        if (odd_line(ls, le)) return 2;
        if (le - ls > r->longest) r->longest = le - ls;
    }
    if (!kind || (kind == C.k_evaluated && !keep_evaluated(r->at + LIT(L_MSGKEY).n, le, r->end))) return 0;
    int took = 0;
    int batched = kind == C.k_admitted || kind == C.k_requeued || kind == C.k_evaluated || kind == C.k_drs
                  || kind == C.k_ongoing || kind == C.k_already;
    if ((batched || kind == C.k_cycle) && !r->high) {
        int64_t place = ls - r->base;
        if (kind == C.k_cycle) took = take_cycle(r->st, ls, le, place);
        else if (r->conflict) took = 0;
        else if (kind == C.k_admitted) took = take_admitted(r->st, ls, le, place);
        else if (kind == C.k_requeued) took = take_requeued(r->st, ls, le, place);
        else if (kind == C.k_evaluated) took = take_evaluated(r->st, ls, le, place);
        else if (kind == C.k_drs) took = take_drs(r->st, ls, le, place);
        else took = take_ongoing(r->st, ls, le, place, LIT(kind == C.k_ongoing ? L_M_ONGOING : L_M_ALREADY));
        if (took < 0) return -1;
    }
    if (!took) {
        rest_t x = {ls - r->base, le - r->base, kind};
        if (vec_push(&r->st->rest, &x, sizeof x) < 0) return -1;
    }
    return 0;
}

/* --- the one pass over a run: newlines, non-ASCII bytes and the needles' candidate starts ---------
 *
 * A block of BLOCK bytes gives a bit mask each: its newlines, its bytes >= 0x80, and for each needle
 * (the message key, the error prefix, the conflict text) the starts where three of its bytes are in
 * place (C.filt: the first and two rarer ones), each such start then compared whole. The masks are
 * taken in the order of their bits, so every line sees its own bytes only: no needle holds a
 * newline (configure checks), so a needle found from a start within a line ends within it. SSE2
 * (every x86-64) reads a block in a few vector compares; elsewhere, and for a run's last bytes, the
 * same masks are made byte by byte (C.vector off: that way only, for the tests). */

#define BLOCK 64
enum { N_MSG, N_ERROR, N_CONFLICT, N_COUNT };
typedef struct { uint64_t nl, high, hit[N_COUNT]; } masks_t;

/* The masks of the BLOCK bytes from p, reading nothing at or past hi. */
static void masks_bytes(const char *p, const char *hi, masks_t *m) {
    memset(m, 0, sizeof *m);
    for (int i = 0; i < BLOCK && p + i < hi; i++) {
        unsigned char c = (unsigned char)p[i];
        uint64_t bit = (uint64_t)1 << i;
        if (c == '\n') m->nl |= bit;
        if (c >= 0x80) m->high |= bit;
        for (int k = 0; k < N_COUNT; k++) {
            int ok = 1;
            for (int j = 0; j < 3 && ok; j++)
                ok = hi - (p + i) > C.filt[k].o[j] && (unsigned char)p[i + C.filt[k].o[j]] == C.filt[k].c[j];
            if (ok) m->hit[k] |= bit;
        }
    }
}


/* The kind of the first message (in the alternation's order) at q, 0 if none: the messages whose
 * first byte after the key is q's, in their order (C.bucketed; else all of them). */
static inline int message_at(const char *q, const char *hi) {
    lit_t key = LIT(L_MSGKEY);
    if (hi - q < key.n || !eqn(q, key.p, key.n)) return 0;
    int j = 0, end = C.n_msgs;
    if (C.bucketed) {
        if (hi - q == key.n) return 0;
        unsigned char c = (unsigned char)q[key.n];
        j = C.bucket[c];
        end = C.bucket[c + 1];
    }
    for (; j < end; j++) {
        lit_t m = C.msgs[C.order[j]];
        if (hi - q >= m.n && eqn(q + key.n, m.p + key.n, m.n - key.n)) return C.msg_kind[C.order[j]];
    }
    return 0;
}

static inline int needle_at(const char *q, const char *hi, int k) {
    lit_t n = C.filt[k].n;
    return hi - q >= n.n && eqn(q, n.p, n.n);
}

/* The (buf, a, b[, flag, keyed, origin]) arguments of scan and odd: the buffer, a and b checked
 * inside it; ``flag`` (NULL: none of the three taken) scan's walk, ``keyed`` and ``origin`` its
 * tables' forms (fs_scan). */
static int range_view(PyObject *args, Py_buffer *view, Py_ssize_t *a, Py_ssize_t *b, int *flag, int *keyed,
                      Py_ssize_t *origin) {
    PyObject *obj;
    if (flag != NULL ? !PyArg_ParseTuple(args, "Onn|ppn", &obj, a, b, flag, keyed, origin)
                     : !PyArg_ParseTuple(args, "Onn", &obj, a, b))
        return -1;
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) return -1;
    if (*a < 0 || *b < *a || *b > view->len) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "range outside the buffer");
        return -1;
    }
    return 0;
}

/* The block at p, its masks m: 0, 1 where the error prefix starts in it, -1 on a Python error. */
static int block(run_t *r, const char *p, const masks_t *m) {
    uint64_t nl = m->nl, high = m->high, msg = m->hit[N_MSG], err = m->hit[N_ERROR], conf = m->hit[N_CONFLICT];
    for (;;) {
        uint64_t seg = nl ? (nl & (0 - nl)) - 1 : ~(uint64_t)0;   /* the bits before the next newline */
        for (uint64_t x = err & seg; x; x &= x - 1)
            if (needle_at(p + __builtin_ctzll(x), r->hi, N_ERROR)) return 1;
        if (high & seg) r->high = 1;
        if (!r->conflict) {
            for (uint64_t x = conf & seg; x; x &= x - 1)
                if (needle_at(p + __builtin_ctzll(x), r->hi, N_CONFLICT)) { r->conflict = r->conflicts = 1; break; }
        }
        if (!r->kind) {
            for (uint64_t x = msg & seg; x; x &= x - 1) {
                const char *q = p + __builtin_ctzll(x);
                if ((r->kind = message_at(q, r->hi)) != 0) { r->at = q; break; }
            }
        }
        if (!nl) return 0;
        const char *le = p + __builtin_ctzll(nl);
        int done = line_done(r, le);
        if (done) return done < 0 ? -1 : 2;
        r->lines++;
        r->ls = le + 1;
        r->kind = r->high = r->conflict = 0;
        uint64_t keep = ~((nl & (0 - nl)) * 2 - 1);   /* the bits after this newline */
        nl &= keep;
        high &= keep;
        msg &= keep;
        err &= keep;
        conf &= keep;
    }
}

#if defined(HAVE_VECTOR)

/* The blocks from p while a whole one and its filters' reach are before hi: where it stopped,
 * *rc what block() gave there (0: the rest is the bytes' way). The needles' offsets and bytes are
 * locals, each spelled out, so they stay in registers across the loop. */
#define VEC_BLOCKS(T, W, set1, load, eq, and, or, mask, zero)                                           \
    const int m0 = C.filt[N_MSG].o[0], m1 = C.filt[N_MSG].o[1], m2 = C.filt[N_MSG].o[2];               \
    const int e0 = C.filt[N_ERROR].o[0], e1 = C.filt[N_ERROR].o[1], e2 = C.filt[N_ERROR].o[2];         \
    const int f0 = C.filt[N_CONFLICT].o[0], f1 = C.filt[N_CONFLICT].o[1], f2 = C.filt[N_CONFLICT].o[2]; \
    const T nlc = set1('\n'), mc0 = set1((char)C.filt[N_MSG].c[0]), mc1 = set1((char)C.filt[N_MSG].c[1]),     \
            mc2 = set1((char)C.filt[N_MSG].c[2]), ec0 = set1((char)C.filt[N_ERROR].c[0]),                 \
            ec1 = set1((char)C.filt[N_ERROR].c[1]), ec2 = set1((char)C.filt[N_ERROR].c[2]),               \
            fc0 = set1((char)C.filt[N_CONFLICT].c[0]), fc1 = set1((char)C.filt[N_CONFLICT].c[1]),         \
            fc2 = set1((char)C.filt[N_CONFLICT].c[2]);                                                   \
    if (hi - p < BLOCK + C.reach) return p;                                                            \
    const char *stop = hi - BLOCK - C.reach;                                                           \
    for (; p <= stop; p += BLOCK) {                                                                    \
        T a[BLOCK / W], nl[BLOCK / W], hm[BLOCK / W], he[BLOCK / W], hf[BLOCK / W], any = zero();        \
        _Pragma("GCC unroll 4") for (int q = 0; q < BLOCK / W; q++) {                                  \
            const char *x = p + W * q;                                                                 \
            a[q] = load(x);                                                                            \
            nl[q] = eq(a[q], nlc);                                                                     \
            hm[q] = and(and(eq(load(x + m0), mc0), eq(load(x + m1), mc1)), eq(load(x + m2), mc2));      \
            he[q] = and(and(eq(load(x + e0), ec0), eq(load(x + e1), ec1)), eq(load(x + e2), ec2));      \
            hf[q] = and(and(eq(load(x + f0), fc0), eq(load(x + f1), fc1)), eq(load(x + f2), fc2));      \
            any = or(any, or(or(a[q], nl[q]), or(hm[q], or(he[q], hf[q]))));                           \
        }                                                                                              \
        if (mask(any) == 0) continue;                                                                  \
        masks_t m = {0, 0, {0, 0, 0}};                                                                 \
        _Pragma("GCC unroll 4") for (int q = 0; q < BLOCK / W; q++) {                                  \
            int sh = W * q;                                                                            \
            m.nl |= (uint64_t)(uint32_t)mask(nl[q]) << sh;                                             \
            m.high |= (uint64_t)(uint32_t)mask(a[q]) << sh;                                            \
            m.hit[N_MSG] |= (uint64_t)(uint32_t)mask(hm[q]) << sh;                                     \
            m.hit[N_ERROR] |= (uint64_t)(uint32_t)mask(he[q]) << sh;                                   \
            m.hit[N_CONFLICT] |= (uint64_t)(uint32_t)mask(hf[q]) << sh;                                \
        }                                                                                              \
        if ((*rc = block(r, p, &m)) != 0) break;                                                       \
    }                                                                                                  \
    return p;

/* SSE2, which every x86-64 has: a block as four 16-byte quarters */
static inline __m128i sse2_load(const char *p) { return _mm_loadu_si128((const __m128i *)p); }

static const char *blocks_sse2(run_t *r, const char *p, const char *hi, int *rc) {
    VEC_BLOCKS(__m128i, 16, _mm_set1_epi8, sse2_load, _mm_cmpeq_epi8, _mm_and_si128, _mm_or_si128,
               _mm_movemask_epi8, _mm_setzero_si128)
}

/* AVX2 where the CPU has it (__builtin_cpu_supports): two 32-byte halves */
__attribute__((target("avx2"))) static inline __m256i avx2_load(const char *p) {
    return _mm256_loadu_si256((const __m256i *)p);
}

__attribute__((target("avx2"))) static const char *blocks_avx2(run_t *r, const char *p, const char *hi, int *rc) {
    VEC_BLOCKS(__m256i, 32, _mm256_set1_epi8, avx2_load, _mm256_cmpeq_epi8, _mm256_and_si256, _mm256_or_si256,
               _mm256_movemask_epi8, _mm256_setzero_si256)
}
#undef VEC_BLOCKS

/* AVX-512BW where the CPU has it: a block is one register, and each compare gives its 64-bit mask
 * itself (a needle's three compares chained through the mask), so a block is ten compares */
typedef struct { int o[3]; __m512i c[3]; } needle512_t;   /* a needle's offsets and bytes, in registers */

__attribute__((target("avx512f,avx512bw"))) static inline needle512_t needle512(int k) {
    needle512_t n;
    for (int j = 0; j < 3; j++) {
        n.o[j] = C.filt[k].o[j];
        n.c[j] = _mm512_set1_epi8((char)C.filt[k].c[j]);
    }
    return n;
}

__attribute__((target("avx512f,avx512bw"))) static inline uint64_t hits512(const char *p, const needle512_t *n) {
    uint64_t m = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(p + n->o[0])), n->c[0]);
    m = _mm512_mask_cmpeq_epi8_mask(m, _mm512_loadu_si512((const void *)(p + n->o[1])), n->c[1]);
    return _mm512_mask_cmpeq_epi8_mask(m, _mm512_loadu_si512((const void *)(p + n->o[2])), n->c[2]);
}

__attribute__((target("avx512f,avx512bw"))) static const char *blocks_avx512(run_t *r, const char *p, const char *hi,
                                                                               int *rc) {
    const needle512_t msg = needle512(N_MSG), err = needle512(N_ERROR), conf = needle512(N_CONFLICT);
    const __m512i nlc = _mm512_set1_epi8('\n');
    if (hi - p < BLOCK + C.reach) return p;
    const char *stop = hi - BLOCK - C.reach;
    for (; p <= stop; p += BLOCK) {
        __m512i a = _mm512_loadu_si512((const void *)p);
        uint64_t nl = _mm512_cmpeq_epi8_mask(a, nlc), high = _mm512_movepi8_mask(a);
        uint64_t hm = hits512(p, &msg), he = hits512(p, &err), hf = hits512(p, &conf);
        if ((nl | high | hm | he | hf) == 0) continue;
        masks_t m = {nl, high, {hm, he, hf}};
        if ((*rc = block(r, p, &m)) != 0) break;
    }
    return p;
}
#endif

/* The start of the first odd line from ls (a line start) on, or hi; the longest line before it
 * in r->longest. */
static const char *run_end(run_t *r, const char *ls, const char *hi) {
    while (ls < hi) {
        const char *le = memchr(ls, '\n', (size_t)(hi - ls));
        if (le == NULL) le = hi;
        if (odd_line(ls, le)) return ls;
        if (le - ls > r->longest) r->longest = le - ls;
        ls = le + 1;
    }
    return hi;
}

/* The lines of [lo, hi): 0, 1 where the error prefix is in it, -1 on a Python error. With
 * r->odd_stop, the run is [lo, *stop): its lines up to the first odd one (which it finds). */
static int scan_run(run_t *r, const char *lo, const char *hi, const char **stop) {
    const char *p = lo;
    int rc = 0;
#if defined(HAVE_VECTOR)
    if (C.vector) p = C.vector > 2 ? blocks_avx512(r, p, hi, &rc)
                      : C.vector > 1 ? blocks_avx2(r, p, hi, &rc) : blocks_sse2(r, p, hi, &rc);
#endif
    for (; rc == 0 && p < hi; p += BLOCK) {
        masks_t m;
        masks_bytes(p, hi, &m);
        rc = block(r, p, &m);
    }
    if (rc == 0 && r->ls < hi) rc = line_done(r, hi);   /* a last line without its newline */
    if (r->odd_stop) {
        *stop = hi;
        if (rc == 2) {   /* at an odd line: the run is the lines before it */
            *stop = r->ls;
            return 0;
        }
        if (rc == 0) return 0;
        /* the error prefix, or a Python error, in the line at r->ls: where the run ends */
        const char *le = memchr(r->ls, '\n', (size_t)(hi - r->ls));
        if (rc == 1 && odd_line(r->ls, le == NULL ? hi : le)) {   /* the prefix is the odd line's */
            *stop = r->ls;
            return 0;
        }
        hi = *stop = run_end(r, r->ls, hi);
    }
    if (rc < 0 && find(r->ls, hi, C.filt[N_ERROR].n) != NULL)
        rc = 1;   /* the error prefix further on: the run is the general path's, as if no line had been read */
    return rc;
}

/* --- what the pass found, as Python objects (with the GIL) ------------------------------------ */

/* str of ASCII bytes (the lines the extension reads are ASCII): without the UTF-8 decoder */
static PyObject *ascii_str(const char *s, Py_ssize_t n) {
    PyObject *u = PyUnicode_New(n, 127);
    if (u != NULL) memcpy(PyUnicode_1BYTE_DATA(u), s, (size_t)n);
    return u;
}

/* str (ASCII) or bytes of each span_t; with ``origin`` >= 0 (the raw lines of a buffer that starts
 * there in a file), each line's place in the file instead, which Evidence.line_at reads back */
static PyObject *spans_list(const vec_t *v, int text, const char *base, Py_ssize_t origin) {
    Py_ssize_t n = v->n / (Py_ssize_t)sizeof(span_t);
    const span_t *x = (const span_t *)v->p;
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *o = text ? ascii_str(x[i].p, x[i].n)
                      : origin >= 0 ? PyLong_FromSsize_t(origin + (x[i].p - base))
                      : PyBytes_FromStringAndSize(x[i].p, x[i].n);
        if (o == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, o);
    }
    return out;
}

/* keys.WorkloadKey is a NamedTuple: a tuple subclass with no slots of its own, so an instance is
 * its type's allocation with the two items, what tuple.__new__ makes of it (without the call
 * through the NamedTuple's Python __new__) */
static int key_type_ok(PyTypeObject *tp) {
    return PyType_IsSubtype(tp, &PyTuple_Type) && tp->tp_basicsize == PyTuple_Type.tp_basicsize
           && tp->tp_itemsize == PyTuple_Type.tp_itemsize;
}

/* tp(ns, name), stealing both references (either NULL: NULL, both released) */
static PyObject *key_new(PyTypeObject *tp, PyObject *ns, PyObject *name) {
    PyObject *made = ns == NULL || name == NULL ? NULL : tp->tp_alloc(tp, 2);
    if (made == NULL) {
        Py_XDECREF(ns);
        Py_XDECREF(name);
        return NULL;
    }
    PyTuple_SET_ITEM(made, 0, ns);
    PyTuple_SET_ITEM(made, 1, name);
    return made;
}

/* The workload keys made so far, by their (namespace, name) bytes, kept across calls (touched with
 * the GIL only): a busy log's runs name mostly the same workloads, and a key found here costs
 * neither its two strings nor the ops._KEYS lookup (bounded as _KEYS is). */
typedef struct { table_t t; PyObject **v; Py_ssize_t n, cap; } objtab_t;   /* bytes -> a Python object */
static objtab_t KEYS, NAMESPACES;   /* the keys, and the namespaces their keys share */

static void objtab_forget(objtab_t *o) {
    for (Py_ssize_t i = 0; i < o->n; i++) Py_DECREF(o->v[i]);
    o->n = 0;
    PyMem_RawFree(o->t.raw);
    PyMem_RawFree(o->t.bytes.p);
    memset(&o->t, 0, sizeof o->t);
}

static void keys_forget(void) {
    objtab_forget(&KEYS);
    objtab_forget(&NAMESPACES);
}

/* The slot of (a, b) in o (h: their hash2), and room for one more object; NULL (MemoryError)
 * when out of memory */
static slot_t *objtab_slot(objtab_t *o, uint64_t h, const char *a, Py_ssize_t an, const char *b, Py_ssize_t bn) {
    slot_t *slot = table_slot_h(&o->t, h, a, an, b, bn);
    if (slot == NULL) return (slot_t *)PyErr_NoMemory();
    if (slot->id < 0 && o->n == o->cap) {
        Py_ssize_t cap = o->cap ? 2 * o->cap : 4096;
        PyObject **v = cap > INT32_MAX ? NULL : PyMem_RawRealloc(o->v, (size_t)cap * sizeof *v);
        if (v == NULL) { slot->id = -1; return (slot_t *)PyErr_NoMemory(); }
        o->v = v;
        o->cap = cap;
    }
    return slot;
}

static PyObject *objtab_keep(objtab_t *o, slot_t *slot, PyObject *made) {   /* made: a new reference */
    if (made == NULL) return NULL;
    slot->id = (int32_t)o->n;
    o->v[o->n++] = Py_NewRef(made);
    return made;
}

/* A namespace's str, one object for all the keys in it (a new reference) */
static PyObject *namespace_of(const char *s, Py_ssize_t n) {
    slot_t *slot = objtab_slot(&NAMESPACES, hash2(s, n, "", 0), s, n, "", 0);
    if (slot == NULL) return NULL;
    if (slot->id >= 0) return Py_NewRef(NAMESPACES.v[slot->id]);
    return objtab_keep(&NAMESPACES, slot, ascii_str(s, n));
}

/* The key of a pair_t from KEYS, made and kept there when missing (a new reference) */
static PyObject *key_of(const pair_t *x) {
    if (KEYS.n > C.keys_bound || NAMESPACES.n > C.keys_bound) keys_forget();
    slot_t *slot = objtab_slot(&KEYS, x->h, x->a, x->an, x->b, x->bn);
    if (slot == NULL) return NULL;
    if (slot->id >= 0) return Py_NewRef(KEYS.v[slot->id]);
    return objtab_keep(&KEYS, slot, key_new(C.key_type, namespace_of(x->a, x->an), ascii_str(x->b, x->bn)));
}

/* The run's workload table: (namespace, name) of each pair_t, ("", "") for an empty one; with
 * ``keyed``, keys.WorkloadKey instead of the tuple of a named one (key_of), which
 * ops._workload_keys then passes on as it is. */
static PyObject *keys_list(const vec_t *v, int keyed) {
    Py_ssize_t n = v->n / (Py_ssize_t)sizeof(pair_t);
    const pair_t *x = (const pair_t *)v->p;
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *o = x[i].an < 0 ? Py_BuildValue("(ss)", "", "")
                      : keyed ? key_of(&x[i]) : Py_BuildValue("(s#s#)", x[i].a, x[i].an, x[i].b, x[i].bn);
        if (o == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, o);
    }
    return out;
}

static PyObject *rest_list(const vec_t *v) {
    Py_ssize_t n = v->n / (Py_ssize_t)sizeof(rest_t);
    const rest_t *x = (const rest_t *)v->p;
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *o = Py_BuildValue("(nni)", (Py_ssize_t)x[i].start, (Py_ssize_t)x[i].end, (int)x[i].kind);
        if (o == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, o);
    }
    return out;
}

/* The late times (parse_time) read by scanner._ts, into the ops that have them and the run's
 * bounds; the cycles' durations read as float() reads them. 0, or -1 with a Python error. */
static int late_read(state_t *st) {
    Py_ssize_t n = st->late.n / (Py_ssize_t)sizeof(span_t), nf = st->fixes.n / (Py_ssize_t)sizeof(fix_t);
    const span_t *late = (const span_t *)st->late.p;
    const fix_t *fixes = (const fix_t *)st->fixes.p;
    double *ts = (double *)st->ts.p, *value = n ? PyMem_Malloc((size_t)n * sizeof *value) : NULL;
    if (n && value == NULL) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyBytes_FromStringAndSize(late[i].p, late[i].n);
        PyObject *r = t == NULL ? NULL : PyObject_CallOneArg(C.ts_fallback, t);
        Py_XDECREF(t);
        value[i] = r == NULL || r == Py_None ? NAN : PyFloat_AsDouble(r);
        Py_XDECREF(r);
        if (r == NULL || (value[i] == -1.0 && PyErr_Occurred())) { PyMem_Free(value); return -1; }
        if (!isnan(value[i])) {
            if (value[i] < st->lo) st->lo = value[i];
            if (value[i] > st->hi) st->hi = value[i];
        }
    }
    for (Py_ssize_t i = 0; i < nf; i++) ts[fixes[i].op] = value[fixes[i].k];
    PyMem_Free(value);
    Py_ssize_t nd = st->dur_text.n / (Py_ssize_t)sizeof(span_t);
    const span_t *dt = (const span_t *)st->dur_text.p;
    for (Py_ssize_t i = 0; i < nd; i++) {
        char text[48], *end;   /* (take_cycle: at most 40 bytes, a JSON number) */
        memcpy(text, dt[i].p, (size_t)dt[i].n);
        text[dt[i].n] = '\0';
        double d = PyOS_string_to_double(text, &end, NULL);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        if (vec_push(&st->dur, &d, 8) < 0) { PyErr_NoMemory(); return -1; }
    }
    return 0;
}

/* scan(buf, a, b): buf[a:b] whole zap JSON lines, none at error level. None if the error prefix
 * is in it (the caller's general path handles those ranges); else (lines, code, place, sub, ts,
 * cq, wl, aux, texts, keys, extras, seen, lo, hi, rest, dur_place, dur, conflicts), rest the
 * (start, end, kind) of every other candidate line, in order, dur_place and dur the places and
 * durations of the cycles' lines taken (int64 and double columns), conflicts whether the run
 * holds the conflict text anywhere.
 * scan(buf, a, b, True), the walk: buf[a:b] whole lines, of which the run is those up to the
 * first odd one (candidates.Hits.odd), found in the same pass: (what scan gives of the run,
 * where it ends, the length of its longest line), so a range is walked once (scanner.py).
 * scan(buf, a, b, walk, keyed, origin): the workload table as keys (keys_list); the raw lines as
 * their places in the file, ``origin`` being where buf starts there (-1: as bytes). */
static PyObject *fs_scan(PyObject *self, PyObject *args) {
    (void)self;
    if (!C.ready) { PyErr_SetString(PyExc_RuntimeError, "configure() first"); return NULL; }
    Py_ssize_t a, b;
    Py_buffer view;
    int walk = 0, keyed = 0;
    Py_ssize_t origin = -1;
    if (range_view(args, &view, &a, &b, &walk, &keyed, &origin) < 0) return NULL;
    if (origin < -1) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "scan: origin must be -1 (none) or a place in the file");
        return NULL;
    }
    const char *base = view.buf, *lo = base + a, *hi = base + b;
    state_t st;
    memset(&st, 0, sizeof st);
    table_adopt(&st.t_text, 0);
    table_adopt(&st.t_pair, 1);
    table_adopt(&st.t_wltext, 2);
    st.lo = INFINITY;
    st.hi = -INFINITY;
    st.late_k = -1;
    PyObject *out = NULL;
    run_t r = {.st = &st, .base = base, .hi = hi, .end = base + view.len, .ls = lo, .odd_stop = walk};
    const char *stop = hi;
    int rc;
    /* The pass makes no Python object and calls no Python code (what it finds is kept as spans of
     * the buffer, whose export keeps it in place), so other threads run meanwhile: the scanner's
     * threads each scan a range at once (parallel.py). */
    Py_BEGIN_ALLOW_THREADS
    rc = scan_run(&r, lo, hi, &stop);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        if (st.overflow) PyErr_SetString(PyExc_OverflowError, "scan: too many raw lines in one run");
        else PyErr_NoMemory();
        goto done;
    }
    if (rc > 0) {
        out = Py_NewRef(Py_None);
    } else if (late_read(&st) == 0) {
        out = Py_BuildValue("(nNNNNNNNNNNnddNNNO)", r.lines, vec_bytes(&st.code), vec_bytes(&st.place), vec_bytes(&st.sub),
                            vec_bytes(&st.ts), vec_bytes(&st.cq), vec_bytes(&st.wl), vec_bytes(&st.aux),
                            spans_list(&st.texts, 1, base, -1), keys_list(&st.keys, keyed),
                            spans_list(&st.extras, 0, base, origin), st.n_seen, st.lo,
                            st.hi, rest_list(&st.rest), vec_bytes(&st.dur_place), vec_bytes(&st.dur),
                            r.conflicts ? Py_True : Py_False);
    }
    if (walk && out != NULL) out = Py_BuildValue("(Nnn)", out, (Py_ssize_t)(stop - base), r.longest);
done:
    state_free(&st);
    PyBuffer_Release(&view);
    return out;
}

/* odd(buf, a, b): the starts of the lines in buf[a:b] that are not "{...}" (candidates.Hits.odd) */
/* The starts of the lines in [ls, hi) that are not "{...}" (candidates.Hits.odd, as offsets
 * from base) appended to ``out``, and the length of the longest line, without its newline. */
static int odd_lines(const char *base, const char *ls, const char *hi, PyObject *out, Py_ssize_t *longest) {
    Py_ssize_t most = 0;
    while (ls < hi) {
        const char *le = memchr(ls, '\n', (size_t)(hi - ls));
        if (le == NULL) le = hi;
        if (le - ls > most) most = le - ls;
        if (le == ls || *ls != '{' || le[-1] != '}') {
            PyObject *v = PyLong_FromSsize_t(ls - base);
            if (v == NULL || PyList_Append(out, v) < 0) { Py_XDECREF(v); return -1; }
            Py_DECREF(v);
        }
        ls = le + 1;
    }
    *longest = most;
    return 0;
}

/* odd_lines over the (buf, a, b) arguments: the list, and the longest line in *longest */
static PyObject *odd_of(PyObject *args, Py_ssize_t *longest) {
    Py_ssize_t a, b;
    Py_buffer view;
    if (range_view(args, &view, &a, &b, NULL, NULL, NULL) < 0) return NULL;
    PyObject *out = PyList_New(0);
    if (out != NULL && odd_lines(view.buf, (const char *)view.buf + a, (const char *)view.buf + b, out, longest) < 0)
        Py_CLEAR(out);
    PyBuffer_Release(&view);
    return out;
}

static PyObject *fs_odd(PyObject *self, PyObject *args) {
    (void)self;
    Py_ssize_t longest;
    return odd_of(args, &longest);
}

static int get_lit(PyObject *cfg, const char *name, lit_t *out) {
    PyObject *v = PyDict_GetItemString(cfg, name);
    if (v == NULL || !PyBytes_Check(v)) {
        PyErr_Format(PyExc_ValueError, "configure: %s must be bytes", name);
        return -1;
    }
    out->p = PyBytes_AS_STRING(v);
    out->n = PyBytes_GET_SIZE(v);
    return 0;
}

static int get_int(PyObject *cfg, const char *name, int *out) {
    PyObject *v = PyDict_GetItemString(cfg, name);
    long x = v ? PyLong_AsLong(v) : -1;
    if (v == NULL || (x == -1 && PyErr_Occurred())) {
        PyErr_Format(PyExc_ValueError, "configure: %s must be an int", name);
        return -1;
    }
    *out = (int)x;
    return 0;
}

static int get_lits(PyObject *cfg, const char *name, lit_t *out, int *n, int cap, int *kinds) {
    PyObject *v = PyDict_GetItemString(cfg, name);
    if (v == NULL || !PyTuple_Check(v) || PyTuple_GET_SIZE(v) > cap) {
        PyErr_Format(PyExc_ValueError, "configure: %s must be a tuple of at most %d", name, cap);
        return -1;
    }
    *n = (int)PyTuple_GET_SIZE(v);
    for (int i = 0; i < *n; i++) {
        PyObject *x = PyTuple_GET_ITEM(v, i);
        if (kinds) {   /* (kind, bytes) */
            if (!PyTuple_Check(x) || PyTuple_GET_SIZE(x) != 2 || !PyBytes_Check(PyTuple_GET_ITEM(x, 1))) goto bad;
            kinds[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(x, 0));
            if (kinds[i] == -1 && PyErr_Occurred()) return -1;
            x = PyTuple_GET_ITEM(x, 1);
        } else if (!PyBytes_Check(x)) {
            goto bad;
        }
        out[i].p = PyBytes_AS_STRING(x);
        out[i].n = PyBytes_GET_SIZE(x);
    }
    return 0;
bad:
    PyErr_Format(PyExc_ValueError, "configure: bad item in %s", name);
    return -1;
}

/* Bytes every zap JSON line has many of: a filter of them would let most blocks through. */
static int common_byte(unsigned char c) {
    return strchr("\"':,{}[] aeiotn", c) != NULL || (c >= '0' && c <= '9');
}

/* A needle's filter: its first byte and the last two that are not common (else the last two). */
static int set_filter(int k, lit_t n) {
    if (n.n == 0 || n.n > 64 || memchr(n.p, '\n', (size_t)n.n) != NULL) {
        PyErr_SetString(PyExc_ValueError, "configure: a needle must be 1 to 64 bytes without a newline");
        return -1;
    }
    int o[3] = {0, 0, 0}, got = 1;
    for (int pass = 0; pass < 2 && got < 3; pass++)
        for (Py_ssize_t i = n.n - 1; i >= 1 && got < 3; i--)
            if (common_byte((unsigned char)n.p[i]) == pass && i != o[1]) o[got++] = (int)i;
    C.filt[k].n = n;
    for (int j = 0; j < 3; j++) {
        C.filt[k].o[j] = o[j];
        C.filt[k].c[j] = (unsigned char)n.p[o[j]];
        if (o[j] > C.reach) C.reach = o[j];
    }
    return 0;
}

/* The messages grouped by their first byte after msgkey, each group in the alternation's order. */
static int set_buckets(void) {
    Py_ssize_t kn = C.lit[L_MSGKEY].n;
    int count[256] = {0};
    C.bucketed = 1;
    for (int i = 0; i < C.n_msgs; i++) {
        if (C.msgs[i].n == kn) C.bucketed = 0;   /* a message that is the key: it matches any */
        else count[(unsigned char)C.msgs[i].p[kn]]++;
    }
    C.bucket[0] = 0;
    for (int c = 0; c < 256; c++) C.bucket[c + 1] = (unsigned char)(C.bucket[c] + count[c]);
    int fill[256];
    for (int c = 0; c < 256; c++) fill[c] = C.bucket[c];
    for (int i = 0; i < C.n_msgs; i++)
        C.order[C.bucketed ? fill[(unsigned char)C.msgs[i].p[kn]]++ : i] = (unsigned char)i;
    return 0;
}

static int configure_replay(PyObject *cfg);   /* below, with the replay */

static PyObject *fs_configure(PyObject *self, PyObject *cfg) {
    (void)self;
    if (!PyDict_Check(cfg)) { PyErr_SetString(PyExc_TypeError, "configure(dict)"); return NULL; }
    C.ready = 0;
    C.reach = 0;
    for (int i = 0; i < L_COUNT_OF; i++)
        if (get_lit(cfg, LIT_NAMES[i], &C.lit[i]) < 0) return NULL;
    if (C.lit[L_MSGKEY].n < 2 || C.lit[L_CONFLICT].n == 0 || C.lit[L_ERROR_PREFIX].n == 0) {
        PyErr_SetString(PyExc_ValueError, "configure: empty needle");
        return NULL;
    }
    if (get_lits(cfg, "messages", C.msgs, &C.n_msgs, MAX_MESSAGES, C.msg_kind) < 0
        || get_lits(cfg, "error_levels", C.levels, &C.n_levels, MAX_LEVELS, NULL) < 0
        || get_lits(cfg, "excluded", C.excluded, &C.n_excluded, MAX_EXCLUDED, NULL) < 0
        || get_int(cfg, "k_admitted", &C.k_admitted) < 0 || get_int(cfg, "k_requeued", &C.k_requeued) < 0
        || get_int(cfg, "k_evaluated", &C.k_evaluated) < 0 || get_int(cfg, "k_drs", &C.k_drs) < 0
        || get_int(cfg, "k_cycle", &C.k_cycle) < 0
        || get_int(cfg, "k_ongoing", &C.k_ongoing) < 0 || get_int(cfg, "k_already", &C.k_already) < 0
        || get_int(cfg, "op_ongoing", &C.op_ongoing) < 0 || get_int(cfg, "op_preemptor", &C.op_preemptor) < 0
        || get_int(cfg, "op_assumed", &C.op_assumed) < 0
        || get_int(cfg, "op_skip", &C.op_skip) < 0 || get_int(cfg, "op_skip_target", &C.op_skip_target) < 0
        || get_int(cfg, "op_admit", &C.op_admit) < 0 || get_int(cfg, "op_requeue", &C.op_requeue) < 0
        || get_int(cfg, "op_not_nominated", &C.op_not_nominated) < 0
        || get_int(cfg, "op_drs_zero", &C.op_drs_zero) < 0)
        return NULL;
    int no_cycle;
    if (get_int(cfg, "no_cycle", &no_cycle) < 0) return NULL;
    C.no_cycle = no_cycle;
    for (int i = 0; i < C.n_msgs; i++) {
        lit_t m = C.msgs[i], k = C.lit[L_MSGKEY];
        if (m.n < k.n || memcmp(m.p, k.p, (size_t)k.n)) {
            PyErr_SetString(PyExc_ValueError, "configure: a message must start with msgkey");
            return NULL;
        }
        if (memchr(m.p, '\n', (size_t)m.n) != NULL) {
            PyErr_SetString(PyExc_ValueError, "configure: a message may not hold a newline");
            return NULL;
        }
    }
    if (set_buckets() < 0 || set_filter(N_MSG, C.lit[L_MSGKEY]) < 0 || set_filter(N_ERROR, C.lit[L_ERROR_PREFIX]) < 0
        || set_filter(N_CONFLICT, C.lit[L_CONFLICT]) < 0)
        return NULL;
    /* the blocks' masks: 3 AVX-512BW, 2 AVX2, 1 SSE2, 0 byte by byte; the best there is unless
     * told less (tests) */
    PyObject *vector = PyDict_GetItemString(cfg, "vector");
    long level = vector == NULL ? 3 : PyLong_AsLong(vector);
    if (level == -1 && PyErr_Occurred()) return NULL;
#if defined(HAVE_VECTOR)
    long best = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f") ? 3
                : __builtin_cpu_supports("avx2") ? 2 : 1;
#else
    long best = 0;
#endif
    C.vector = (int)(level < best ? level : best);
    PyObject *mask = PyDict_GetItemString(cfg, "hash_mask");
    C.hash_mask = mask == NULL ? ~(uint64_t)0 : PyLong_AsUnsignedLongLongMask(mask);
    if (C.hash_mask == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    PyObject *fallback = PyDict_GetItemString(cfg, "ts_fallback");
    if (fallback == NULL || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_ValueError, "configure: ts_fallback must be callable");
        return NULL;
    }
    C.ts_fallback = fallback;
    PyObject *kt = PyDict_GetItemString(cfg, "workload_type");
    if (kt == NULL || !PyType_Check(kt) || !key_type_ok((PyTypeObject *)kt)) {
        PyErr_SetString(PyExc_ValueError, "configure: workload_type must be a tuple subclass without slots");
        return NULL;
    }
    int bound;
    if (get_int(cfg, "keys_bound", &bound) < 0) return NULL;
    keys_forget();   /* (keys of another type, or another bound) */
    C.key_type = (PyTypeObject *)kt;
    C.keys_bound = bound;
    if (configure_replay(cfg) < 0) return NULL;
    Py_INCREF(cfg);
    Py_XSETREF(C.keep, cfg);   /* the dict holds every literal and callable above */
    C.ready = 1;
    Py_RETURN_NONE;
}

/* longest(buf, a, b): the length of the longest line in buf[a:b] without its newline (a last
 * line without one counts too), which says whether reader.chunks would skip any (parallel.py) */
/* --- the replay of a run's operations (ops.apply_ops) ------------------------------------------ */

/* The names and values the replay reads, set by configure(): attribute names interned, the
 * Evidence's caps and labels from the config dict (signatures.py, logvocab.py). */
static struct {
    PyObject *first, *last, *requeue, *timeline, *heads, *admitted, *admit_times, *new_head, *attempts,
        *reason, *requeues, *workload_cq, *queues, *drs_zero, *retries, *example, *borrowing,
        *victims, *lines, *cycles, *last_cycle, *preemptors, *examples_of, *skipper_cqs, *skipped,
        *skipped_overlap;
    PyObject *no_candidates, *tl_requeued, *tl_admitted, *heads_cap, *one, *zero, *victim_type;
    Py_ssize_t times_cap, examples;
    int op_event, op_assumed;
} R;

/* A queue's parts a run touches, fetched once per run: its QueueStats (``q``) and the
 * containers it never rebinds (heads, requeue, timeline, admit_times), the timeline's Counter of
 * the last minute, and what the run wrote but not yet set on it: ``last`` (the last time) and
 * ``admitted`` (how many). Python code may read or write the same queue in an OP_EVENT's
 * handler: everything pending is set before each one (flush), so it sees what the loop did. */
typedef struct {
    PyObject *q, *heads, *requeue, *timeline, *admit_times, *minute_c, *last;
    long long minute;
    Py_ssize_t admitted;
    int has_first;
} qc_t;

typedef struct {
    qc_t **v;           /* open addressing on q's address; NULL: empty. Each entry is allocated
                         * on its own: made[] in fs_replay keeps pointers to them across growth */
    Py_ssize_t cap, n;
} qtab_t;

static void qc_clear(qc_t *c) {
    Py_CLEAR(c->q);
    Py_CLEAR(c->heads);
    Py_CLEAR(c->requeue);
    Py_CLEAR(c->timeline);
    Py_CLEAR(c->admit_times);
    Py_CLEAR(c->minute_c);
    Py_CLEAR(c->last);
}

/* What the loop wrote to ``c`` set on its QueueStats (Evidence._queue's last, admitted += n). */
static int qc_flush(qc_t *c) {
    if (c->last != NULL) {
        int rc = PyObject_SetAttr(c->q, R.last, c->last);
        Py_CLEAR(c->last);
        if (rc < 0) return -1;
    }
    if (c->admitted) {
        PyObject *v = PyObject_GetAttr(c->q, R.admitted), *w = NULL;
        if (v != NULL) {
            PyObject *n = PyLong_FromSsize_t(c->admitted);
            w = n ? PyNumber_Add(v, n) : NULL;
            Py_XDECREF(n);
            Py_DECREF(v);
        }
        c->admitted = 0;
        int rc = w == NULL ? -1 : PyObject_SetAttr(c->q, R.admitted, w);
        Py_XDECREF(w);
        if (rc < 0) return -1;
    }
    return 0;
}

static int qtab_flush(qtab_t *t) {
    int rc = 0;
    for (Py_ssize_t i = 0; i < t->cap; i++)
        if (t->v[i] != NULL && qc_flush(t->v[i]) < 0) rc = -1;
    return rc;
}

static void qtab_free(qtab_t *t) {
    if (t->v == NULL) return;
    for (Py_ssize_t i = 0; i < t->cap; i++)
        if (t->v[i] != NULL) {
            qc_clear(t->v[i]);
            PyMem_Free(t->v[i]);
        }
    PyMem_Free(t->v);
    t->v = NULL;
}

static Py_ssize_t qtab_slot(qtab_t *t, PyObject *q) {
    Py_ssize_t i = (Py_ssize_t)(((uintptr_t)q >> 4) * 0x9E3779B97F4A7C15ULL >> 20) & (t->cap - 1);
    while (t->v[i] != NULL && t->v[i]->q != q) i = (i + 1) & (t->cap - 1);
    return i;
}

/* The cache entry of queue ``q`` (made and filled on first use); NULL on a Python error. */
static qc_t *qtab_get(qtab_t *t, PyObject *q) {
    if (t->v == NULL || 2 * (t->n + 1) > t->cap) {
        Py_ssize_t cap = t->cap ? 2 * t->cap : 64;
        qtab_t bigger = {PyMem_Calloc((size_t)cap, sizeof(qc_t *)), cap, t->n};
        if (bigger.v == NULL) { PyErr_NoMemory(); return NULL; }
        for (Py_ssize_t i = 0; i < t->cap; i++)
            if (t->v[i] != NULL) bigger.v[qtab_slot(&bigger, t->v[i]->q)] = t->v[i];
        PyMem_Free(t->v);
        *t = bigger;
    }
    Py_ssize_t at = qtab_slot(t, q);
    if (t->v[at] != NULL) return t->v[at];
    qc_t *c = PyMem_Calloc(1, sizeof(qc_t));
    if (c == NULL) { PyErr_NoMemory(); return NULL; }
    PyObject *first = PyObject_GetAttr(q, R.first);
    if (first == NULL) { PyMem_Free(c); return NULL; }
    c->has_first = first != Py_None;
    Py_DECREF(first);
    c->heads = PyObject_GetAttr(q, R.heads);
    c->requeue = c->heads ? PyObject_GetAttr(q, R.requeue) : NULL;
    c->timeline = c->requeue ? PyObject_GetAttr(q, R.timeline) : NULL;
    c->admit_times = c->timeline ? PyObject_GetAttr(q, R.admit_times) : NULL;
    if (c->admit_times == NULL || !PyDict_Check(c->heads) || !PyDict_Check(c->requeue) || !PyList_Check(c->admit_times)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "replay: a QueueStats of another shape");
        qc_clear(c);
        PyMem_Free(c);
        return NULL;
    }
    c->q = Py_NewRef(q);
    t->v[at] = c;
    t->n++;
    return c;
}

/* Evidence._queue's first/last: the first time once, the last one each time (set at a flush) */
static int qc_seen(qc_t *c, PyObject *ts) {
    if (!c->has_first) {
        if (PyObject_SetAttr(c->q, R.first, ts) < 0) return -1;
        c->has_first = 1;
    }
    Py_XSETREF(c->last, Py_NewRef(ts));
    return 0;
}

/* d[key] += 1 on a Counter (a dict: a missing key reads as 0, as Counter's __missing__ says) */
static int count_in(PyObject *d, PyObject *key) {
    PyObject *v = PyDict_GetItemWithError(d, key);
    if (v == NULL && PyErr_Occurred()) return -1;
    PyObject *w = v == NULL ? Py_NewRef(R.one) : PyNumber_Add(v, R.one);
    if (w == NULL) return -1;
    int rc = PyDict_SetItem(d, key, w);
    Py_DECREF(w);
    return rc;
}

/* obj.<attr> += 1 */
static int bump(PyObject *obj, PyObject *attr) {
    PyObject *v = PyObject_GetAttr(obj, attr);
    if (v == NULL) return -1;
    PyObject *w = PyNumber_Add(v, R.one);
    Py_DECREF(v);
    if (w == NULL) return -1;
    int rc = PyObject_SetAttr(obj, attr, w);
    Py_DECREF(w);
    return rc;
}

/* q.timeline[minute][label] += 1 (the timeline a defaultdict: a new minute is made by it) */
static int count_minute(qc_t *c, long long minute, PyObject *label) {
    if (c->minute_c == NULL || c->minute != minute) {
        PyObject *m = PyLong_FromLongLong(minute);
        if (m == NULL) return -1;
        PyObject *got = PyObject_GetItem(c->timeline, m);
        Py_DECREF(m);
        if (got == NULL) return -1;
        if (!PyDict_Check(got)) {
            Py_DECREF(got);
            PyErr_SetString(PyExc_TypeError, "replay: a timeline minute is not a Counter");
            return -1;
        }
        Py_XSETREF(c->minute_c, got);
        c->minute = minute;
    }
    return count_in(c->minute_c, label);
}

static int truthy_str(PyObject *s) { return PyUnicode_Check(s) && PyUnicode_GET_LENGTH(s) > 0; }

/* obj.<attr> = ts where it is None or ts is below it (op Py_LT) or above it (Py_GT) */
static int keep_extreme(PyObject *obj, PyObject *attr, PyObject *ts, int op) {
    PyObject *cur = PyObject_GetAttr(obj, attr);
    if (cur == NULL) return -1;
    int replace;
    if (cur == Py_None) replace = 1;
    else if (PyFloat_CheckExact(cur) && PyFloat_CheckExact(ts))
        replace = op == Py_LT ? PyFloat_AS_DOUBLE(ts) < PyFloat_AS_DOUBLE(cur) : PyFloat_AS_DOUBLE(ts) > PyFloat_AS_DOUBLE(cur);
    else replace = PyObject_RichCompareBool(ts, cur, op);
    Py_DECREF(cur);
    if (replace < 0) return -1;
    return replace ? PyObject_SetAttr(obj, attr, ts) : 0;
}

/* Evidence.ongoing of a named target: its Victim (made when missing; Evidence._victim's first and
 * last), the preemptor (NULL or None: none), one more line, Evidence._cycle of ``cycle`` (the
 * no-cycle mark: None), the raw line among the first examples. With ``skipper`` (and no raw line),
 * a target of an overlap skip in Evidence.evaluated: the skipping head's ClusterQueue added. */
static int victim_line(PyObject *ev, PyObject *victims, PyObject *target, PyObject *ts, PyObject *preemptor,
                       int32_t cycle, PyObject *raw, PyObject *skipper) {
    PyObject *v = PyDict_GetItemWithError(victims, target), *c = NULL, *got = NULL;
    if (v == NULL) {
        if (PyErr_Occurred()) return -1;
        v = PyObject_CallNoArgs(R.victim_type);
        if (v == NULL) return -1;
        if (PyDict_SetItem(victims, target, v) < 0) { Py_DECREF(v); return -1; }
    } else {
        Py_INCREF(v);
    }
    int rc = -1;
    if (ts != Py_None && (keep_extreme(v, R.first, ts, Py_LT) < 0 || keep_extreme(v, R.last, ts, Py_GT) < 0)) goto out;
    if (skipper != NULL) {
        got = PyObject_GetAttr(v, R.skipper_cqs);
        if (got == NULL) goto out;
        if (!PySet_Check(got)) { PyErr_SetString(PyExc_TypeError, "replay: a Victim's skipper_cqs are not a set"); goto out; }
        if (PySet_Add(got, skipper) < 0) goto out;
        Py_CLEAR(got);
    }
    if (preemptor != NULL && preemptor != Py_None) {
        got = PyObject_GetAttr(v, R.preemptors);
        if (got == NULL) goto out;
        if (!PySet_Check(got)) { PyErr_SetString(PyExc_TypeError, "replay: a Victim's preemptors are not a set"); goto out; }
        if (PySet_Add(got, preemptor) < 0) goto out;
        Py_CLEAR(got);
    }
    if (bump(v, R.lines) < 0) goto out;
    c = cycle == C.no_cycle ? Py_NewRef(Py_None) : PyLong_FromLong(cycle);
    if (c == NULL) goto out;
    int changed = 1;   /* Evidence._cycle: c is None or c != v.last_cycle */
    if (c != Py_None) {
        got = PyObject_GetAttr(v, R.last_cycle);
        if (got == NULL) goto out;
        changed = PyObject_RichCompareBool(c, got, Py_NE);
        Py_CLEAR(got);
        if (changed < 0) goto out;
    }
    if (changed && (bump(v, R.cycles) < 0 || PyObject_SetAttr(v, R.last_cycle, c) < 0)) goto out;
    if (raw == NULL) {
        rc = 0;
        goto out;
    }
    got = PyObject_GetAttr(v, R.examples_of);
    if (got == NULL) goto out;
    if (!PyList_Check(got) || PyList_GET_SIZE(got) < R.examples) {
        PyObject *r = PyObject_CallMethodObjArgs(ev, R.example, got, raw, NULL);
        if (r == NULL) goto out;
        Py_DECREF(r);
    }
    rc = 0;
out:
    Py_XDECREF(got);
    Py_XDECREF(c);
    Py_DECREF(v);
    return rc;
}

/* Evidence._minute of a time: int(ts // 60) * 60, with Python's floor division of floats (fmod,
 * then the quotient rounded as float_floor_div rounds it), so the minutes are the same as the
 * Python loop's on every time, not only on most */
static long long minute_of(double ts) {
    double mod = fmod(ts, 60.0), div = (ts - mod) / 60.0;
    if (mod != 0.0 && mod < 0.0) div -= 1.0;
    double q = floor(div);
    if (div - q > 0.5) q += 1.0;
    return (long long)q * 60;
}

/* replay(ev, code, ts, cq, wl, aux, texts, keys, extras, apply_event): ops.apply_ops's loop,
 * rule for rule (its Python twin stays the reference: the tests compare the Evidence of both).
 * ts NaN is no time. */
static PyObject *fs_replay(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ev, *texts, *keys, *extras, *apply_event;
    Py_buffer b_code, b_ts, b_cq, b_wl, b_aux;
    if (!C.ready) { PyErr_SetString(PyExc_RuntimeError, "configure() first"); return NULL; }
    if (!PyArg_ParseTuple(args, "Oy*y*y*y*y*O!O!O!O", &ev, &b_code, &b_ts, &b_cq, &b_wl, &b_aux,
                          &PyList_Type, &texts, &PyList_Type, &keys, &PyList_Type, &extras, &apply_event))
        return NULL;
    PyObject *out = NULL, *wcq = NULL, *queues = NULL, *drs_zero = NULL, *borrowing = NULL, *victims = NULL;
    PyObject *preemptor = NULL;   /* the OP_PREEMPTOR's workload before an OP_ONGOING (borrowed: keys holds it) */
    PyObject *skipper = NULL, *skip_cq = NULL;   /* an OP_SKIP's workload (borrowed) and queue (owned) */
    qc_t **made = NULL;   /* text id -> its queue's cache entry, this run */
    qtab_t tab = {NULL, 0, 0};
    Py_ssize_t n = b_code.len, n_texts = PyList_GET_SIZE(texts);
    if (b_ts.len != n * 8 || b_cq.len != n * 4 || b_wl.len != n * 4 || b_aux.len != n * 4) {
        PyErr_SetString(PyExc_ValueError, "replay: columns of different lengths");
        goto done;
    }
    const int8_t *codes = b_code.buf;
    const double *tss = b_ts.buf;
    const int32_t *cqs = b_cq.buf, *wls = b_wl.buf, *auxs = b_aux.buf;
    wcq = PyObject_GetAttr(ev, R.workload_cq);
    queues = PyObject_GetAttr(ev, R.queues);
    drs_zero = PyObject_GetAttr(ev, R.drs_zero);
    borrowing = PyObject_GetAttr(ev, R.borrowing);
    victims = PyObject_GetAttr(ev, R.victims);
    made = PyMem_Calloc((size_t)n_texts + 1, sizeof(qc_t *));
    if (wcq == NULL || queues == NULL || drs_zero == NULL || borrowing == NULL || victims == NULL || made == NULL)
        goto done;
    if (!PyDict_Check(wcq) || !PyDict_Check(drs_zero) || !PyDict_Check(borrowing) || !PyDict_Check(victims)) {
        PyErr_SetString(PyExc_TypeError, "replay: workload_cq, drs_zero, borrowing and victims must be dicts");
        goto done;
    }
#define TEXT(i) ((i) >= 0 && (i) < n_texts ? PyList_GET_ITEM(texts, (i)) : NULL)
    for (Py_ssize_t i = 0; i < n; i++) {
        int code = codes[i];
        if (code == R.op_event) {
            if (auxs[i] < 0 || auxs[i] >= PyList_GET_SIZE(extras)) goto bad_index;
            if (qtab_flush(&tab) < 0) goto done;
            PyObject *r = PyObject_CallFunctionObjArgs(apply_event, ev, PyList_GET_ITEM(extras, auxs[i]), NULL);
            if (r == NULL) goto done;
            Py_DECREF(r);
            continue;
        }
        if (wls[i] < 0 || wls[i] >= PyList_GET_SIZE(keys)) goto bad_index;
        PyObject *wl = PyList_GET_ITEM(keys, wls[i]);   /* a WorkloadKey or None */
        int has_wl = wl != Py_None, timed = !isnan(tss[i]);
        if (code == C.op_preemptor) {
            preemptor = wl;
            continue;
        }
        if (code == C.op_skip_target) {   /* a target of the OP_SKIP before */
            if (!has_wl || skip_cq == NULL) continue;
            PyObject *ts = timed ? PyFloat_FromDouble(tss[i]) : Py_NewRef(Py_None);
            int rc = ts == NULL ? -1 : victim_line(ev, victims, wl, ts, skipper, cqs[i], NULL, skip_cq);
            Py_XDECREF(ts);
            if (rc < 0) goto done;
            continue;
        }
        if (code == C.op_ongoing) {   /* Evidence.ongoing: the target, the preemptor the op before */
            PyObject *pre = preemptor;
            preemptor = NULL;
            if (!has_wl) continue;
            if (auxs[i] < 0 || auxs[i] >= PyList_GET_SIZE(extras)) goto bad_index;
            PyObject *ts = timed ? PyFloat_FromDouble(tss[i]) : Py_NewRef(Py_None);
            int rc = ts == NULL ? -1 : victim_line(ev, victims, wl, ts, pre, cqs[i], PyList_GET_ITEM(extras, auxs[i]), NULL);
            Py_XDECREF(ts);
            if (rc < 0) goto done;
            continue;
        }
        if (code == R.op_assumed) {   /* Evidence.evaluated of an assumed workload: resolve_cq, borrowing */
            PyObject *cq = TEXT(cqs[i]);
            if (cq == NULL) goto bad_index;
            if (has_wl) {
                if (truthy_str(cq)) {
                    if (PyDict_SetItem(wcq, wl, cq) < 0) goto done;
                } else {
                    PyObject *got = PyDict_GetItemWithError(wcq, wl);
                    if (got == NULL && PyErr_Occurred()) goto done;
                    if (got != NULL) cq = got;
                }
            }
            if (auxs[i] && PyObject_IsTrue(cq)) {
                int in = PyDict_Contains(borrowing, cq);
                if (in < 0) goto done;
                if (!in) {
                    PyObject *ts = timed ? PyFloat_FromDouble(tss[i]) : Py_NewRef(Py_None);
                    int rc = ts == NULL ? -1 : PyDict_SetItem(borrowing, cq, ts);
                    Py_XDECREF(ts);
                    if (rc < 0) goto done;
                }
            }
            continue;
        }
        if (code == C.op_drs_zero) {   /* Evidence.drs_value of a zero share */
            if (!has_wl) continue;
            PyObject *cq = PyDict_GetItemWithError(wcq, wl);
            if (cq == NULL) { if (PyErr_Occurred()) goto done; continue; }
            if (!PyObject_IsTrue(cq)) continue;
            PyObject *ts = timed ? PyFloat_FromDouble(tss[i]) : Py_NewRef(Py_None);
            if (ts == NULL) goto done;
            PyObject *seen = PyDict_GetItemWithError(drs_zero, cq);
            int rc = 0;
            if (seen == NULL) {
                if (PyErr_Occurred()) { Py_DECREF(ts); goto done; }
                PyObject *ex = PyList_New(0);
                seen = ex ? Py_BuildValue("[OOON]", R.zero, ts, ts, ex) : NULL;
                rc = seen == NULL ? -1 : PyDict_SetItem(drs_zero, cq, seen);
                Py_XDECREF(seen);   /* the dict holds it */
            }
            if (rc == 0 && PyList_Check(seen) && PyList_GET_SIZE(seen) == 4) {
                PyObject *c = PyNumber_Add(PyList_GET_ITEM(seen, 0), R.one);
                if (c == NULL) rc = -1;
                else {
                    PyList_SetItem(seen, 0, c);
                    PyList_SetItem(seen, 2, Py_NewRef(ts));
                    PyObject *bucket = PyList_GET_ITEM(seen, 3);
                    if (PyList_Check(bucket) && PyList_GET_SIZE(bucket) < R.examples) {
                        if (auxs[i] < 0 || auxs[i] >= PyList_GET_SIZE(extras)) { Py_DECREF(ts); goto bad_index; }
                        PyObject *r = PyObject_CallMethodObjArgs(ev, R.example, bucket,
                                                                 PyList_GET_ITEM(extras, auxs[i]), NULL);
                        if (r == NULL) rc = -1;
                        Py_XDECREF(r);
                    }
                }
            } else if (rc == 0) {
                PyErr_SetString(PyExc_TypeError, "replay: a drs_zero entry is not [n, first, last, examples]");
                rc = -1;
            }
            Py_DECREF(ts);
            if (rc < 0) goto done;
            continue;
        }
        PyObject *reason = NULL;
        PyObject *cq = TEXT(cqs[i]);
        if (cq == NULL) goto bad_index;
        if (code == C.op_skip && (auxs[i] < 0 || auxs[i] >= PyList_GET_SIZE(extras))) goto bad_index;
        if (code == C.op_not_nominated || code == C.op_requeue) {
            reason = TEXT(auxs[i]);
            if (reason == NULL) goto bad_index;
        }
        if (code == C.op_not_nominated && !truthy_str(reason)) {
            /* resolve_cq's side effect, even without a queue to touch */
            if (has_wl && truthy_str(cq) && PyDict_SetItem(wcq, wl, cq) < 0) goto done;
            continue;
        }
        qc_t *qc;
        PyObject *resolved = cq;
        if (has_wl && !truthy_str(cq)) {   /* Evidence.resolve_cq: the queue the workload was seen in */
            resolved = PyDict_GetItemWithError(wcq, wl);
            if (resolved == NULL) {
                if (PyErr_Occurred()) goto done;
                resolved = PyList_GET_ITEM(texts, cqs[i]);   /* "" */
            }
            PyObject *q = PyObject_GetItem(queues, resolved);   /* a defaultdict: made when missing */
            if (q == NULL) goto done;
            qc = qtab_get(&tab, q);
            Py_DECREF(q);
            if (qc == NULL) goto done;
        } else {
            if (has_wl && PyDict_SetItem(wcq, wl, cq) < 0) goto done;
            if (made[cqs[i]] == NULL) {
                PyObject *q = PyObject_GetItem(queues, cq);
                if (q == NULL) goto done;
                made[cqs[i]] = qtab_get(&tab, q);
                Py_DECREF(q);
                if (made[cqs[i]] == NULL) goto done;
            }
            qc = made[cqs[i]];
        }
        PyObject *ts = timed ? PyFloat_FromDouble(tss[i]) : Py_NewRef(Py_None);
        if (ts == NULL) goto done;
        int rc = 0;
        if (timed) rc = qc_seen(qc, ts);
        if (code == C.op_skip) {   /* Evidence.evaluated of an overlap skip: the queue's count, an example */
            skipper = wl;
            Py_XSETREF(skip_cq, Py_NewRef(resolved));
            if (rc == 0) rc = bump(qc->q, R.skipped_overlap);
            PyObject *bucket = rc == 0 ? PyObject_GetAttr(ev, R.skipped) : NULL;
            if (bucket == NULL) rc = -1;
            else if (!PyList_Check(bucket) || PyList_GET_SIZE(bucket) < R.examples) {
                PyObject *r = PyObject_CallMethodObjArgs(ev, R.example, bucket, PyList_GET_ITEM(extras, auxs[i]), NULL);
                if (r == NULL) rc = -1;
                Py_XDECREF(r);
            }
            Py_XDECREF(bucket);
        } else if (code == C.op_requeue) {   /* Evidence.requeued */
            if (rc == 0) rc = count_in(qc->requeue, reason);
            if (rc == 0 && timed) rc = count_minute(qc, minute_of(tss[i]), R.tl_requeued);
            if (rc == 0 && has_wl) {
                int storm = PyObject_RichCompareBool(reason, R.no_candidates, Py_EQ);
                if (storm < 0) rc = -1;
                if (storm > 0) {
                    PyObject *r = PyObject_CallMethodObjArgs(ev, R.retries, wl, resolved, ts, NULL);
                    if (r == NULL) rc = -1;
                    else if (r != Py_None) rc = bump(r, R.requeues);
                    Py_XDECREF(r);
                }
                PyObject *head = rc == 0 ? PyDict_GetItemWithError(qc->heads, wl) : NULL;
                Py_XINCREF(head);
                if (rc < 0 || (head == NULL && PyErr_Occurred())) rc = -1;
                else if (head == NULL)   /* (new_head reads nothing the loop holds back) */
                    head = PyObject_CallMethodObjArgs(qc->q, R.new_head, wl, ts, R.heads_cap, NULL);
                if (rc == 0 && (head == NULL || bump(head, R.attempts) < 0
                                || PyObject_SetAttr(head, R.requeue, reason) < 0
                                || PyObject_SetAttr(head, R.last, ts) < 0))
                    rc = -1;
                Py_XDECREF(head);
            }
        } else if (code == C.op_admit) {   /* Evidence.admitted */
            if (rc == 0 && timed && PyList_GET_SIZE(qc->admit_times) < R.times_cap)
                rc = PyList_Append(qc->admit_times, ts);
            qc->admitted++;
            if (rc == 0 && timed) rc = count_minute(qc, minute_of(tss[i]), R.tl_admitted);
            if (rc == 0 && has_wl) {
                int in = PyDict_Contains(qc->heads, wl);
                if (in < 0) rc = -1;
                else if (in) rc = PyDict_DelItem(qc->heads, wl);
            }
        } else if (rc == 0 && has_wl) {   /* a head not nominated: its reason */
            PyObject *head = PyDict_GetItemWithError(qc->heads, wl);
            if (head == NULL && PyErr_Occurred()) rc = -1;
            else if (head != NULL) rc = PyObject_SetAttr(head, R.reason, reason);
        }
        Py_DECREF(ts);
        if (rc < 0) goto done;
    }
#undef TEXT
    if (qtab_flush(&tab) < 0) goto done;
    out = Py_NewRef(Py_None);
    goto done;
bad_index:
    PyErr_SetString(PyExc_IndexError, "replay: an operation's index outside its table");
done:
    if (out == NULL && tab.v != NULL) {   /* keep the error, set what was done so far */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        qtab_flush(&tab);
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
    }
    qtab_free(&tab);
    PyMem_Free(made);
    Py_XDECREF(wcq);
    Py_XDECREF(queues);
    Py_XDECREF(drs_zero);
    Py_XDECREF(borrowing);
    Py_XDECREF(victims);
    Py_XDECREF(skip_cq);
    PyBuffer_Release(&b_code);
    PyBuffer_Release(&b_ts);
    PyBuffer_Release(&b_cq);
    PyBuffer_Release(&b_wl);
    PyBuffer_Release(&b_aux);
    return out;
}

static int configure_replay(PyObject *cfg) {
    const char *names[] = {"first", "last", "requeue", "timeline", "heads", "admitted", "admit_times", "new_head",
                           "attempts", "reason", "requeues", "workload_cq", "queues", "drs_zero", "_retries",
                           "_example", "borrowing", "victims", "lines", "cycles", "last_cycle", "preemptors",
                           "examples", "skipper_cqs", "skipped", "skipped_overlap"};
    PyObject **slots[] = {&R.first, &R.last, &R.requeue, &R.timeline, &R.heads, &R.admitted, &R.admit_times,
                          &R.new_head, &R.attempts, &R.reason, &R.requeues, &R.workload_cq, &R.queues,
                          &R.drs_zero, &R.retries, &R.example, &R.borrowing, &R.victims, &R.lines, &R.cycles,
                          &R.last_cycle, &R.preemptors, &R.examples_of, &R.skipper_cqs, &R.skipped,
                          &R.skipped_overlap};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (*slots[i] == NULL && (*slots[i] = PyUnicode_InternFromString(names[i])) == NULL) return -1;
    const char *objs[] = {"no_candidates_reason", "timeline_requeued", "timeline_admitted", "heads_cap", "victim_type"};
    PyObject **oslots[] = {&R.no_candidates, &R.tl_requeued, &R.tl_admitted, &R.heads_cap, &R.victim_type};
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
        PyObject *v = PyDict_GetItemString(cfg, objs[i]);   /* borrowed: C.keep holds the dict */
        if (v == NULL) { PyErr_Format(PyExc_ValueError, "configure: %s missing", objs[i]); return -1; }
        *oslots[i] = v;
    }
    int times_cap, examples;
    if (get_int(cfg, "times_cap", &times_cap) < 0 || get_int(cfg, "examples", &examples) < 0
        || get_int(cfg, "op_event", &R.op_event) < 0 || get_int(cfg, "op_assumed", &R.op_assumed) < 0)
        return -1;
    R.times_cap = times_cap;
    R.examples = examples;
    if (R.one == NULL && (R.one = PyLong_FromLong(1)) == NULL) return -1;
    if (R.zero == NULL && (R.zero = PyLong_FromLong(0)) == NULL) return -1;
    return 0;
}

/* workload_keys(pairs, cache, key_type, bound): ops._workload_keys, its Python twin: each
 * (namespace, name) pair's key from ``cache`` (ops._KEYS), a missing one made there (the cache
 * emptied first when it holds more than ``bound``), None for a pair whose namespace is empty.
 * ``key_type`` is keys.WorkloadKey (key_type_ok, key_new). A pair is a 2-tuple (the tables'
 * values, batch._workload); it is the cache's key, as an equal tuple is in workload_of. */
static PyObject *fs_workload_keys(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *pairs, *cache, *type;
    Py_ssize_t bound;
    if (!PyArg_ParseTuple(args, "O!O!O!n", &PyList_Type, &pairs, &PyDict_Type, &cache, &PyType_Type, &type, &bound))
        return NULL;
    PyTypeObject *tp = (PyTypeObject *)type;
    if (!key_type_ok(tp)) {
        PyErr_SetString(PyExc_TypeError, "workload_keys: the key type must be a tuple subclass without slots");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(pairs);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i >= PyList_GET_SIZE(pairs)) {
            PyErr_SetString(PyExc_RuntimeError, "workload_keys: the pairs changed size");
            goto fail;
        }
        PyObject *pair = PyList_GET_ITEM(pairs, i);
        if (Py_IS_TYPE(pair, tp)) {   /* made by the scan (key_of): the key itself */
            PyList_SET_ITEM(out, i, Py_NewRef(pair));
            continue;
        }
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "workload_keys: a pair is not a (namespace, name) tuple");
            goto fail;
        }
        Py_INCREF(pair);
        PyObject *wl = PyDict_GetItemWithError(cache, pair);   /* borrowed */
        if (wl != NULL) {
            PyList_SET_ITEM(out, i, Py_NewRef(wl));
            Py_DECREF(pair);
            continue;
        }
        int named = PyErr_Occurred() ? -1 : PyObject_IsTrue(PyTuple_GET_ITEM(pair, 0));
        if (named <= 0) {
            Py_DECREF(pair);
            if (named < 0) goto fail;
            PyList_SET_ITEM(out, i, Py_NewRef(Py_None));
            continue;
        }
        if (PyDict_GET_SIZE(cache) > bound) PyDict_Clear(cache);
        PyObject *made = key_new(tp, Py_NewRef(PyTuple_GET_ITEM(pair, 0)), Py_NewRef(PyTuple_GET_ITEM(pair, 1)));
        if (made == NULL) { Py_DECREF(pair); goto fail; }
        int rc = PyDict_SetItem(cache, pair, made);
        Py_DECREF(pair);
        PyList_SET_ITEM(out, i, made);   /* the list's reference; the cache holds its own */
        if (rc < 0) goto fail;
    }
    return out;
fail:
    Py_DECREF(out);   /* the items not set yet are NULL, which a list's dealloc skips */
    return NULL;
}

/* durations(ds, n, total, top, slow): Evidence.durations's loop over a list of floats, with the
 * same double arithmetic in the same order; None when an item is not a float (Python adds it). */
static PyObject *fs_durations(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ds;
    Py_ssize_t n, slow;
    double total, top;
    if (!PyArg_ParseTuple(args, "Onddn", &ds, &n, &total, &top, &slow)) return NULL;
    if (!PyList_CheckExact(ds) && !PyTuple_CheckExact(ds)) Py_RETURN_NONE;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(ds);
    PyObject **items = PySequence_Fast_ITEMS(ds);
    for (Py_ssize_t i = 0; i < m; i++)
        if (!PyFloat_CheckExact(items[i])) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < m; i++) {
        double d = PyFloat_AS_DOUBLE(items[i]);
        n++;
        total += d;
        if (d > top) top = d;
        if (d > 1.0) slow++;
    }
    return Py_BuildValue("(nddn)", n, total, top, slow);
}

static PyMethodDef METHODS[] = {
    {"durations", fs_durations, METH_VARARGS, "Evidence.durations over a list or tuple of floats."},
    {"configure", fs_configure, METH_O, "Set the literals and callables (logs/fastpath.py)."},
    {"scan", fs_scan, METH_VARARGS, "The frequent lines of a run of zap JSON lines as operations."},
    {"odd", fs_odd, METH_VARARGS, "The starts of the lines that are not {...}."},
    {"replay", fs_replay, METH_VARARGS, "ops.apply_ops's loop over a run's operations."},
    {"workload_keys", fs_workload_keys, METH_VARARGS, "ops._workload_keys: pairs to cached WorkloadKeys."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "_fastscan", NULL, -1, METHODS, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fastscan(void) { return PyModule_Create(&MODULE); }
