/* The exhaustive search with its positions on disk: breadth first by layers
 * (the number of cards home, which never goes down), with delayed duplicate
 * detection, for proofs of loss larger than memory.
 *
 * A position is kept in the compact delta form of the root (exhaust.c),
 * padded to a fixed record (24 bytes in the three games). Sorted files keep
 * each record as its difference from the one before: the length of the
 * prefix they share and of the record's trailing zeros, then the bytes
 * between (sorted neighbours share most of their foundations and moved-card
 * bits, and short forms end in padding): two to eight bytes a position.
 *
 * Every position of a layer is reached from the layer's first level (the
 * positions that lower layers sent up to it) or from the level before it in
 * the same layer, so a layer is searched level by level. A level's positions
 * are expanded; the children in the same layer fill the memory buffer from
 * its front, the children that go up fill it from its back (each with its
 * layer), and when it is full both parts are sorted and their repeats
 * dropped: the front is written as a sorted run, the back as one sorted
 * chunk for each layer, appended to that layer's pending file. The runs are
 * then merged against the layer's levels so far (disjoint sorted files whose
 * union is every position of the layer seen yet, so no other copy of the set
 * is kept): the new ones are the next level. A layer with no new positions
 * is done, and the lowest pending layer's chunks are sorted into its first
 * level.
 *
 * Every finished level is a checkpoint: a small state file, written whole and
 * renamed into place, names the layer, the level, the positions expanded
 * before it and the size of every pending file then. Resuming truncates the
 * pending files to those sizes and does the level again, so a search killed
 * at any moment gives, resumed, the same verdict and the same count of
 * positions as one that was never stopped. A checkpoint of the earlier
 * format (the layer's set in a file of its own, pending positions as fixed
 * records) is converted when it is resumed. The level files are kept to the
 * end: a win's line is found back through them (each position's parent is
 * in the level before it, or in a lower layer). */

#include "core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define DISK_MAGIC "bakers-disk-search 5"
#define DISK_MAGIC_V4 "bakers-disk-search 4" /* no closure in its rules line */
#define DISK_MAGIC_V3 "bakers-disk-search 3" /* resumed after conversion */
#define E_FULL (-1000) /* the disk budget is spent (b->limit says so) */
#define E_IO (-1001)   /* a file could not be read or written */
#define IOBUF (1u << 20)
#define MERGEBUF (1u << 18) /* each input of a merge */
#define MAXRUNS 4096

typedef struct {
    const Rules *r;        /* ``rules``: the caller's, with a checkpoint's closure */
    Rules rules;
    const Weights *w;
    Budget *b;
    const bk_disk *opt;
    Delta d;
    int rec;               /* bytes a record */
    uint8_t root[NCARDS];
    int layer, level;
    long long states0;     /* positions expanded before the current level */
    long long pend[NCARDS + 1]; /* bytes of each pending file at the level's start */
    long long disk, disk_peak;
    uint8_t *buf;          /* the in-memory buffer */
    size_t bytes;          /* its size */
    size_t cap;            /* records of ``rec`` bytes it holds */
    int v3;                /* resumed from a checkpoint of the earlier format */
    Child *kids;
} Disk;

/* --- files ------------------------------------------------------------------ */

static void path_of(const Disk *k, char *out, size_t n, const char *fmt, int a, int b)
{
    char name[64];
    snprintf(name, sizeof name, fmt, a, b);
    snprintf(out, n, "%s/%s", k->opt->dir, name);
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* Bytes of every file in the work directory. */
static long long dir_bytes(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    long long sum = 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        sum += file_size(path);
    }
    closedir(dp);
    return sum;
}

/* Close a file the next checkpoint counts on, its bytes on the disk first
 * (a power cut after the state file is renamed must not lose them). */
static int close_synced(FILE *f)
{
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    return fclose(f) != 0 || bad;
}

static FILE *open_file(const char *path, const char *mode)
{
    FILE *f = fopen(path, mode);
    if (f)
        setvbuf(f, NULL, _IOFBF, IOBUF);
    return f;
}

/* Over the disk budget, counting ``more`` bytes about to be written? */
static int disk_full(Disk *k, long long more)
{
    long long now = k->disk + more;
    if (now > k->disk_peak)
        k->disk_peak = now;
    if (k->opt->max_disk >= 0 && now > k->opt->max_disk) {
        k->b->limit = LIM_DISK;
        return 1;
    }
    return 0;
}

/* A sorted file of records, each kept as its difference from the previous
 * one (see the top of the file). */
typedef struct {
    FILE *f;
    uint8_t prev[32];
} Sorted;

static Sorted sorted_of(FILE *f)
{
    Sorted s;
    memset(&s, 0, sizeof s);
    s.f = f;
    return s;
}

static int put_sorted(Disk *k, Sorted *s, const uint8_t *rec)
{
    int n = k->rec, p = 0, z = 0;
    while (p < n && rec[p] == s->prev[p])
        p++;
    while (z < n - p && rec[n - 1 - z] == 0)
        z++;
    uint8_t out[34];
    out[0] = (uint8_t)p;
    out[1] = (uint8_t)z;
    memcpy(out + 2, rec + p, (size_t)(n - p - z));
    size_t len = (size_t)(n - p - z + 2);
    if (disk_full(k, (long long)len))
        return E_FULL;
    if (fwrite(out, 1, len, s->f) != len)
        return E_IO;
    k->disk += (long long)len;
    memcpy(s->prev, rec, (size_t)n);
    return 0;
}

/* The next record into ``rec``: 1, or 0 at the end (or on a bad file). */
static int get_sorted(const Disk *k, Sorted *s, uint8_t *rec)
{
    int n = k->rec;
    int p = getc_unlocked(s->f), z = getc_unlocked(s->f);
    if (p == EOF || z == EOF || p + z > n)
        return 0;
    memcpy(rec, s->prev, (size_t)p);
    if (fread(rec + p, 1, (size_t)(n - p - z), s->f) != (size_t)(n - p - z))
        return 0;
    memset(rec + n - z, 0, (size_t)z);
    memcpy(s->prev, rec, (size_t)n);
    return 1;
}

/* --- the state file: the checkpoint ---------------------------------------- */

static int save_state(Disk *k)
{
    char path[4096], tmp[4096];
    path_of(k, path, sizeof path, "state", 0, 0);
    path_of(k, tmp, sizeof tmp, "state.tmp", 0, 0);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return E_IO;
    fprintf(f, "%s\nrules %d %d %d %d %d %d %d %d\nroot ", DISK_MAGIC, k->r->ncols, k->r->ncells,
            k->r->build, k->r->can_fill, k->r->supermoves, k->r->horne, k->rec, k->r->cellclose);
    for (int c = 0; c < NCARDS; c++)
        fprintf(f, "%02x", k->root[c]);
    fprintf(f, "\nat %d %d %lld\npending", k->layer, k->level, k->states0);
    for (int h = 0; h <= NCARDS; h++)
        fprintf(f, " %lld", k->pend[h]);
    fprintf(f, "\n");
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0)
        return E_IO;
    /* the renames and new files of the level, on the disk with the state */
    int dfd = open(k->opt->dir, O_RDONLY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

/* 1: resumed from the state file; 0: none there; -BK_ERR_RESUME: it belongs to
 * another search; E_IO: unreadable. A checkpoint of the formats before 5 was
 * made with the closure of the cells those versions had (pruning rule 9's,
 * none in FreeCell): the search goes on under it, and says so in the
 * checkpoints it writes, so that its positions and count are those of the
 * search it began. */
static int load_state(Disk *k)
{
    char path[4096];
    path_of(k, path, sizeof path, "state", 0, 0);
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : E_IO;
    char magic[64] = {0}, hex[2 * NCARDS + 2] = {0};
    int a[8], ok = 1;
    ok &= fgets(magic, sizeof magic, f) != NULL;
    k->v3 = ok && strncmp(magic, DISK_MAGIC_V3, strlen(DISK_MAGIC_V3)) == 0;
    int old = k->v3 || (ok && strncmp(magic, DISK_MAGIC_V4, strlen(DISK_MAGIC_V4)) == 0);
    ok &= old || strncmp(magic, DISK_MAGIC, strlen(DISK_MAGIC)) == 0;
    ok &= fscanf(f, " rules %d %d %d %d %d %d %d", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5],
                 &a[6]) == 7;
    /* the closure before format 5 */
    int before = a[2] == BUILD_SAME && a[1] > 0 && a[3] && a[4] ? CLOSE_NATURAL : CLOSE_NONE;
    if (old)
        a[7] = before;
    else
        ok &= fscanf(f, " %d", &a[7]) == 1;
    ok &= fscanf(f, " root %104s", hex) == 1;
    ok &= fscanf(f, " at %d %d %lld", &k->layer, &k->level, &k->states0) == 3;
    ok &= fscanf(f, " pending") == 0;
    for (int h = 0; ok && h <= NCARDS; h++)
        ok &= fscanf(f, " %lld", &k->pend[h]) == 1;
    fclose(f);
    if (!ok)
        return E_IO;
    int same = a[0] == k->r->ncols && a[1] == k->r->ncells && a[2] == k->r->build &&
               a[3] == k->r->can_fill && a[4] == k->r->supermoves && a[5] == k->r->horne &&
               a[6] == k->rec;
    for (int c = 0; same && c < NCARDS; c++) {
        unsigned v;
        same = sscanf(hex + 2 * c, "%2x", &v) == 1 && v == k->root[c];
    }
    if (!same || (a[7] != k->rules.cellclose && a[7] != before))
        return -BK_ERR_RESUME;
    k->rules.cellclose = a[7];
    return 1;
}

/* --- records ------------------------------------------------------------------ */

/* memcmp's order on ``w`` bytes, eight at a time: a search compares records
 * billions of times, and the C library's memcmp is a call each time. */
static inline int rec_cmp(const uint8_t *a, const uint8_t *b, size_t w)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    size_t i = 0;
    for (; i + 8 <= w; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
    }
    for (; i < w; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
#else
    return memcmp(a, b, w);
#endif
}

/* Sort ``n`` records of W bytes in place in the order of memcmp, from byte
 * ``at`` on (the bytes before are equal in all of them): an in-place
 * most-significant-byte radix sort (American flag sort), with insertion sort
 * for small buckets. No memory beyond the records. One function for each
 * record size, so that the copies are of a known size. */
#define RECORDS_SORT(NAME, W)                                                                      \
    static void NAME(uint8_t *a, size_t n, int at)                                                 \
    {                                                                                              \
        uint8_t tmp[W], held[W];                                                                   \
        while (n > 24 && at < (W)) {                                                               \
            size_t count[256] = {0};                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                count[a[i * (W) + (size_t)at]]++;                                                  \
            if (count[a[at]] == n) { /* one bucket: on to the next byte */                         \
                at++;                                                                              \
                continue;                                                                          \
            }                                                                                      \
            size_t next[256], end[256], sum = 0;                                                   \
            for (int v = 0; v < 256; v++) {                                                        \
                next[v] = sum;                                                                     \
                sum += count[v];                                                                   \
                end[v] = sum;                                                                      \
            }                                                                                      \
            for (int v = 0; v < 256; v++)                                                          \
                while (next[v] < end[v]) {                                                         \
                    uint8_t *slot = a + next[v] * (W);                                             \
                    int u = slot[at];                                                              \
                    if (u != v) {                                                                  \
                        /* carry the record to its bucket, taking the one there on */              \
                        memcpy(tmp, slot, W);                                                      \
                        while (u != v) {                                                           \
                            uint8_t *dst = a + next[u]++ * (W);                                    \
                            u = dst[at];                                                           \
                            memcpy(held, dst, W);                                                  \
                            memcpy(dst, tmp, W);                                                   \
                            memcpy(tmp, held, W);                                                  \
                        }                                                                          \
                        memcpy(slot, tmp, W);                                                      \
                    }                                                                              \
                    next[v]++;                                                                     \
                }                                                                                  \
            size_t from = 0;                                                                       \
            for (int v = 0; v < 256; v++) {                                                        \
                if (count[v] > 1)                                                                  \
                    NAME(a + from * (W), count[v], at + 1);                                        \
                from += count[v];                                                                  \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = 1; i < n; i++) {                                                           \
            size_t j = i;                                                                          \
            memcpy(tmp, a + i * (W), W);                                                           \
            while (j > 0 && rec_cmp(a + (j - 1) * (W), tmp, W) > 0) {                              \
                memcpy(a + j * (W), a + (j - 1) * (W), W);                                         \
                j--;                                                                               \
            }                                                                                      \
            memcpy(a + j * (W), tmp, W);                                                           \
        }                                                                                          \
    }
RECORDS_SORT(records_sort24, 24)
RECORDS_SORT(records_sort32, 32)
RECORDS_SORT(records_sort25, 25)
RECORDS_SORT(records_sort33, 33)

/* Sort ``n`` records of ``rec`` bytes (24 or 32, or 25 or 33: a record with
 * its layer in front) in the order of memcmp and drop repeats; the count
 * kept. */
BK_FN size_t records_sort_unique(uint8_t *recs, size_t n, int rec)
{
    if (n < 2)
        return n;
    if (rec == 24)
        records_sort24(recs, n, 0);
    else if (rec == 25)
        records_sort25(recs, n, 0);
    else if (rec == 33)
        records_sort33(recs, n, 0);
    else
        records_sort32(recs, n, 0);
    const size_t w = (size_t)rec;
    size_t out = 1;
    for (size_t i = 1; i < n; i++)
        if (rec_cmp(recs + i * w, recs + (out - 1) * w, w)) {
            if (i != out)
                memcpy(recs + out * w, recs + i * w, w);
            out++;
        }
    return out;
}

static int home_count(const uint8_t *key)
{
    int h = 0;
    for (int c = 0; c < NCARDS; c++)
        h += key[c] == HOME;
    return h;
}

static int pack(const Disk *k, const uint8_t *key, uint8_t *out)
{
    uint8_t form[PACK_MAX + 8];
    int n = delta_pack(&k->d, key, form);
    if (n < 0 || n > k->rec)
        return -1;
    memset(out, 0, (size_t)k->rec);
    memcpy(out, form, (size_t)n);
    return 0;
}

/* --- sorted streams: runs merged ------------------------------------------ */

typedef struct {
    Sorted in;
    uint8_t cur[32];
    int live;
} Stream;

static void stream_next(const Disk *k, Stream *s)
{
    s->live = s->in.f && get_sorted(k, &s->in, s->cur) == 1;
}

/* A binary heap of live streams, least current record on top. */
typedef struct {
    Stream **s;
    int n;
} Heap;

static void heap_down(const Disk *k, Heap *h, int i)
{
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < h->n && rec_cmp(h->s[l]->cur, h->s[m]->cur, (size_t)k->rec) < 0)
            m = l;
        if (l + 1 < h->n && rec_cmp(h->s[l + 1]->cur, h->s[m]->cur, (size_t)k->rec) < 0)
            m = l + 1;
        if (m == i)
            return;
        Stream *t = h->s[i];
        h->s[i] = h->s[m];
        h->s[m] = t;
        i = m;
    }
}

/* The heap of the live ones of ``n`` streams (``slots`` room for n). */
static Heap heap_of(const Disk *k, Stream *s, int n, Stream **slots)
{
    Heap h = {slots, 0};
    for (int i = 0; i < n; i++)
        if (s[i].live)
            h.s[h.n++] = &s[i];
    for (int i = h.n / 2 - 1; i >= 0; i--)
        heap_down(k, &h, i);
    return h;
}

/* The top stream on to its next record (out of the heap at its end). */
static void heap_next(const Disk *k, Heap *h)
{
    stream_next(k, h->s[0]);
    if (!h->s[0]->live)
        h->s[0] = h->s[--h->n];
    heap_down(k, h, 0);
}

/* Open ``n`` sorted files as streams at their first record: the runs
 * (``layer`` < 0) or the first levels of ``layer``. */
static int open_streams(Disk *k, Stream *s, int n, int layer)
{
    char path[4096];
    for (int i = 0; i < n; i++) {
        if (layer < 0)
            path_of(k, path, sizeof path, "run-%05d.bin", i, 0);
        else
            path_of(k, path, sizeof path, "L%02d-%05d.bin", layer, i);
        FILE *f = fopen(path, "rb");
        if (!f)
            return E_IO;
        setvbuf(f, NULL, _IOFBF, MERGEBUF);
        s[i].in = sorted_of(f);
        stream_next(k, &s[i]);
    }
    return 0;
}

/* The run in memory (``n`` records) sorted and written as run file ``*nrun``. */
static int flush_run(Disk *k, size_t n, int *nrun)
{
    if (!n)
        return 0;
    if (*nrun >= MAXRUNS)
        return E_IO;
    n = records_sort_unique(k->buf, n, k->rec);
    char path[4096];
    path_of(k, path, sizeof path, "run-%05d.bin", *nrun, 0);
    FILE *f = open_file(path, "wb");
    if (!f)
        return E_IO;
    Sorted out = sorted_of(f);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = put_sorted(k, &out, k->buf + i * (size_t)k->rec);
    if (fclose(f) != 0 && rc == 0)
        rc = E_IO;
    (*nrun)++;
    return rc;
}

static void remove_runs(Disk *k, int nrun)
{
    char path[4096];
    for (int i = 0; i < nrun; i++) {
        path_of(k, path, sizeof path, "run-%05d.bin", i, 0);
        k->disk -= file_size(path);
        remove(path);
    }
}

/* Merge the runs against the first ``nseen`` levels of the current layer
 * (disjoint sorted files: the layer's positions seen so far): the records
 * in none of them go to ``fresh_f``, their count in *nfresh. */
static int merge_runs(Disk *k, int nrun, int nseen, FILE *fresh_f, long long *nfresh)
{
    Sorted fresh = sorted_of(fresh_f);
    int nall = nrun + nseen;
    Stream *s = calloc((size_t)nall + 1, sizeof(Stream));
    Stream **slots = calloc((size_t)nall + 1, sizeof(Stream *));
    int rc = s && slots ? 0 : -BK_ERR_NOMEM;
    if (rc == 0)
        rc = open_streams(k, s, nrun, -1);
    if (rc == 0)
        rc = open_streams(k, s + nrun, nseen, k->layer);
    *nfresh = 0;
    if (rc == 0) {
        Heap runs = heap_of(k, s, nrun, slots), seen = heap_of(k, s + nrun, nseen, slots + nrun);
        uint8_t x[32];
        while (rc == 0 && runs.n) {
            memcpy(x, runs.s[0]->cur, (size_t)k->rec);
            while (runs.n && rec_cmp(runs.s[0]->cur, x, (size_t)k->rec) == 0)
                heap_next(k, &runs);
            while (seen.n && rec_cmp(seen.s[0]->cur, x, (size_t)k->rec) < 0)
                heap_next(k, &seen);
            if (seen.n && rec_cmp(seen.s[0]->cur, x, (size_t)k->rec) == 0)
                continue; /* seen before in this layer */
            rc = put_sorted(k, &fresh, x);
            (*nfresh)++;
        }
    }
    for (int i = 0; s && i < nall; i++)
        if (s[i].in.f)
            fclose(s[i].in.f);
    free(s);
    free(slots);
    return rc;
}

/* --- pending layers: sorted chunks ---------------------------------------- */

/* A pending file is a sequence of chunks, each a count (8 bytes, least
 * significant first) and that many records in the sorted difference form. */
static void pend_path(const Disk *k, char *out, size_t n, int h)
{
    path_of(k, out, n, k->v3 ? "pend-%02d.bin" : "up-%02d.bin", h, 0);
}

/* Write ``n`` sorted records of ``rec`` bytes, at ``step`` bytes apart, as a
 * chunk of ``f``. */
static int put_chunk(Disk *k, FILE *f, const uint8_t *recs, size_t n, size_t step)
{
    uint8_t head[8];
    for (int i = 0; i < 8; i++)
        head[i] = (uint8_t)((unsigned long long)n >> (8 * i));
    if (disk_full(k, 8))
        return E_FULL;
    if (fwrite(head, 1, 8, f) != 8)
        return E_IO;
    k->disk += 8;
    Sorted out = sorted_of(f);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = put_sorted(k, &out, recs + i * step);
    return rc;
}

/* The children that go up, ``m`` records of 1 + rec bytes (their layer
 * first) at the back of the buffer: sorted, repeats dropped, and each
 * layer's appended to its pending file as a chunk. */
static int flush_up(Disk *k, size_t m, FILE **pend)
{
    if (!m)
        return 0;
    size_t step = (size_t)k->rec + 1;
    uint8_t *up = k->buf + k->bytes - m * step;
    m = records_sort_unique(up, m, k->rec + 1);
    size_t i = 0;
    while (i < m) {
        int h = up[i * step];
        size_t j = i;
        while (j < m && up[j * step] == h)
            j++;
        if (!pend[h]) {
            char pp[4096];
            pend_path(k, pp, sizeof pp, h);
            pend[h] = open_file(pp, "ab");
            if (!pend[h])
                return E_IO;
        }
        int rc = put_chunk(k, pend[h], up + i * step + 1, j - i, step);
        if (rc)
            return rc;
        i = j;
    }
    return 0;
}

/* The records of pending file ``path`` into the buffer, written as sorted
 * runs whenever it is full: 0 with the count of runs in *nrun. */
static int pend_to_runs(Disk *k, const char *path, int *nrun)
{
    FILE *in = open_file(path, "rb");
    if (!in)
        return E_IO;
    size_t n = 0;
    int rc = 0;
    uint8_t head[8];
    size_t got;
    while (rc == 0 && (got = fread(head, 1, 8, in)) == 8) {
        unsigned long long count = 0;
        for (int i = 0; i < 8; i++)
            count |= (unsigned long long)head[i] << (8 * i);
        Sorted chunk = sorted_of(in);
        for (unsigned long long c = 0; c < count && rc == 0; c++) {
            if (get_sorted(k, &chunk, k->buf + n * (size_t)k->rec) != 1)
                rc = E_IO; /* a chunk cut short */
            else if (++n == k->cap) {
                rc = flush_run(k, n, nrun);
                n = 0;
            }
        }
    }
    if (rc == 0 && got != 0)
        rc = E_IO;
    fclose(in);
    if (rc == 0)
        rc = flush_run(k, n, nrun);
    return rc;
}

/* A checkpoint of the earlier format: each pending file of fixed records
 * rewritten as sorted chunks, the state saved in this format, then the old
 * files removed (a kill on the way leaves the old checkpoint whole). */
static int save_state(Disk *k);
static int convert_v3(Disk *k)
{
    char old[4096], now[4096];
    for (int h = 0; h <= NCARDS; h++) { /* what a conversion cut short left */
        path_of(k, now, sizeof now, "up-%02d.bin", h, 0);
        remove(now);
    }
    for (int h = 0; h <= NCARDS; h++) {
        if (!k->pend[h])
            continue;
        path_of(k, old, sizeof old, "pend-%02d.bin", h, 0);
        path_of(k, now, sizeof now, "up-%02d.bin", h, 0);
        FILE *in = open_file(old, "rb"), *out = open_file(now, "wb");
        int rc = in && out ? 0 : E_IO;
        size_t n;
        while (rc == 0 && (n = fread(k->buf, (size_t)k->rec, k->cap, in)) > 0) {
            n = records_sort_unique(k->buf, n, k->rec);
            rc = put_chunk(k, out, k->buf, n, (size_t)k->rec);
        }
        if (in)
            fclose(in);
        if (out && close_synced(out) && rc == 0)
            rc = E_IO;
        if (rc)
            return rc;
    }
    k->v3 = 0;
    for (int h = 0; h <= NCARDS; h++) {
        path_of(k, now, sizeof now, "up-%02d.bin", h, 0);
        k->pend[h] = k->pend[h] ? file_size(now) : 0;
    }
    if (save_state(k) < 0)
        return E_IO;
    for (int h = 0; h <= NCARDS; h++) {
        path_of(k, old, sizeof old, "pend-%02d.bin", h, 0);
        remove(old);
    }
    k->disk = dir_bytes(k->opt->dir);
    return 0;
}

/* --- a win's line: back through the level files ---------------------------- */

/* Whether ``q`` (a key) has ``child`` among its children; the move in *m. */
static int parent_of(Disk *k, const uint8_t *q, const uint8_t *child, Step *m)
{
    Pos pos;
    if (decode(k->r, k->w, q, &pos) < 0)
        return 0;
    int n = generate(k->r, k->w, q, 0, &pos, pos_h(k->w, &pos), k->kids);
    for (int t = 0; t < n; t++)
        if (memcmp(k->kids[t].key, child, NCARDS) == 0) {
            m->card = k->kids[t].card;
            m->count = k->kids[t].count;
            m->dest = k->kids[t].dest;
            return 1;
        }
    return 0;
}

/* Look in level file (layer, level) for a parent of ``key``: 1 and the parent
 * in ``key`` (the move into the old key in *m), 0 if none, E_IO on a read error. */
static int find_parent(Disk *k, int layer, int level, uint8_t *key, Step *m)
{
    char path[4096];
    path_of(k, path, sizeof path, "L%02d-%05d.bin", layer, level);
    FILE *f = open_file(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : E_IO;
    uint8_t rec[32], q[NCARDS];
    int found = 0;
    Sorted in = sorted_of(f);
    while (!found && get_sorted(k, &in, rec) == 1) {
        delta_unpack(&k->d, rec, k->rec, q);
        if (parent_of(k, q, key, m)) {
            memcpy(key, q, NCARDS);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* The line from the root to ``key`` (in level file ``layer``/``level``),
 * then ``last``: *line malloc'd. */
static int line_back(Disk *k, const uint8_t *key_in, int layer, int level, Step last,
                     CMove **line, size_t *nline)
{
    size_t cap = 256, n = 0;
    Step *rev = malloc(cap * sizeof(Step));
    if (!rev)
        return -BK_ERR_NOMEM;
    rev[n++] = last;
    uint8_t key[NCARDS];
    memcpy(key, key_in, NCARDS);
    while (memcmp(key, k->root, NCARDS) != 0) {
        Step m;
        int found = 0;
        if (level > 0) {
            found = find_parent(k, layer, level - 1, key, &m);
            if (found == 1)
                level--;
        } else {
            /* a layer's first level came up from lower layers: any of their levels */
            for (int h = layer - 1; h >= 0 && found == 0; h--)
                for (int lv = 0; found == 0; lv++) {
                    char path[4096];
                    path_of(k, path, sizeof path, "L%02d-%05d.bin", h, lv);
                    if (access(path, F_OK) != 0)
                        break;
                    found = find_parent(k, h, lv, key, &m);
                    if (found == 1)
                        layer = h, level = lv;
                }
        }
        if (found != 1) {
            free(rev);
            return found < 0 ? found : ST_ERROR;
        }
        if (n == cap) {
            Step *g = realloc(rev, 2 * cap * sizeof(Step));
            if (!g) {
                free(rev);
                return -BK_ERR_NOMEM;
            }
            rev = g;
            cap *= 2;
        }
        rev[n++] = m;
    }
    *line = malloc(n * sizeof(CMove));
    if (!*line) {
        free(rev);
        return -BK_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const Step *s = &rev[n - 1 - i];
        (*line)[i] = (CMove){s->card, s->count, dest_code(s->dest)};
    }
    *nline = n;
    free(rev);
    return 0;
}

/* --- the search ----------------------------------------------------------------- */

static void progress(Disk *k, long long states)
{
    if (k->opt->progress)
        k->opt->progress(k->opt->progress_ctx, states, k->layer, k->level, k->disk);
}

/* The lowest pending layer sorted into its first level: 1 if there was one,
 * 0 if none is left (the search is over). */
static int next_layer(Disk *k)
{
    char path[4096], lvl[4096];
    int h = k->layer + 1;
    while (h <= NCARDS && k->pend[h] == 0)
        h++;
    if (h > NCARDS)
        return 0;
    pend_path(k, path, sizeof path, h);
    int nrun = 0;
    int rc = pend_to_runs(k, path, &nrun);
    if (rc) {
        remove_runs(k, nrun);
        return rc;
    }
    path_of(k, lvl, sizeof lvl, "L%02d-%05d.bin", h, 0);
    FILE *fresh = open_file(lvl, "wb");
    long long nfresh = 0;
    rc = fresh ? merge_runs(k, nrun, 0, fresh, &nfresh) : E_IO;
    if (fresh && close_synced(fresh) && rc == 0)
        rc = E_IO;
    remove_runs(k, nrun);
    if (rc)
        return rc;
    k->pend[h] = 0; /* its file goes once the checkpoint says so */
    k->layer = h;
    k->level = 0;
    return 1;
}

/* Expand the current level: ST_STAGE when done (next level or layer set up
 * and checkpointed), ST_WIN, ST_EXHAUSTED, ST_LIMIT, or a negative error. */
static int do_level(Disk *k, CMove **line, size_t *nline)
{
    Budget *b = k->b;
    char path[4096], nxt[4096];
    FILE *pend[NCARDS + 1] = {0};
    path_of(k, path, sizeof path, "L%02d-%05d.bin", k->layer, k->level);
    FILE *in = open_file(path, "rb");
    if (!in)
        return E_IO;
    int rc = 0, nrun = 0, status = ST_STAGE;
    const size_t rec = (size_t)k->rec, step = rec + 1;
    size_t n = 0, m = 0; /* records at the front (this layer), at the back (up) */
    uint8_t rbuf[32], key[NCARDS];
    Pos pos;
    b->states = k->states0;
    Sorted level = sorted_of(in);
    while (get_sorted(k, &level, rbuf) == 1) {
        if (!(b->states & 255)) {
            if (budget_check(b)) {
                status = ST_LIMIT;
                break;
            }
            if (!(b->states & 0xffff))
                progress(k, b->states);
        }
        b->states++;
        delta_unpack(&k->d, rbuf, k->rec, key);
        if (decode(k->r, k->w, key, &pos) < 0) {
            rc = ST_ERROR;
            break;
        }
        int nk = generate(k->r, k->w, key, 0, &pos, pos_h(k->w, &pos), k->kids);
        for (int t = 0; t < nk && rc == 0; t++) {
            const Child *ch = &k->kids[t];
            if (ch->win) {
                Step last = {0};
                last.card = ch->card;
                last.count = ch->count;
                last.dest = ch->dest;
                fclose(in);
                for (int h = 0; h <= NCARDS; h++)
                    if (pend[h])
                        fclose(pend[h]);
                remove_runs(k, nrun);
                rc = line_back(k, key, k->layer, k->level, last, line, nline);
                return rc ? rc : ST_WIN;
            }
            if (n * rec + m * step + step > k->bytes) { /* full: both parts out */
                rc = flush_run(k, n, &nrun);
                if (rc == 0)
                    rc = flush_up(k, m, pend);
                n = m = 0;
                if (rc)
                    break;
            }
            int h = home_count(ch->key);
            uint8_t *slot = h == k->layer ? k->buf + n++ * rec
                                          : k->buf + k->bytes - ++m * step;
            if (h != k->layer)
                *slot++ = (uint8_t)h;
            if (pack(k, ch->key, slot) < 0)
                rc = ST_ERROR;
        }
        if (rc)
            break;
    }
    fclose(in);
    if (rc == 0 && status == ST_STAGE)
        rc = flush_up(k, m, pend);
    for (int h = 0; h <= NCARDS; h++)
        if (pend[h] && close_synced(pend[h]) && rc == 0)
            rc = E_IO;
    if (rc == 0 && status == ST_STAGE)
        rc = flush_run(k, n, &nrun);
    if (rc || status != ST_STAGE) {
        remove_runs(k, nrun);
        if (rc == E_FULL || status == ST_LIMIT)
            return ST_LIMIT; /* the checkpoint stays at this level's start */
        return rc;
    }
    /* the level's new positions: the runs less the layer's levels so far */
    path_of(k, nxt, sizeof nxt, "L%02d-%05d.bin", k->layer, k->level + 1);
    FILE *fresh = open_file(nxt, "wb");
    long long nfresh = 0;
    rc = fresh ? merge_runs(k, nrun, k->level + 1, fresh, &nfresh) : E_IO;
    if (fresh && close_synced(fresh) && rc == 0)
        rc = E_IO;
    remove_runs(k, nrun);
    if (rc) {
        remove(nxt);
        k->disk = dir_bytes(k->opt->dir);
        return rc == E_FULL ? ST_LIMIT : rc;
    }
    for (int h = 0; h <= NCARDS; h++) {
        char pp[4096];
        pend_path(k, pp, sizeof pp, h);
        k->pend[h] = file_size(pp);
    }
    k->states0 = b->states;
    int from_layer = k->layer;
    if (nfresh) {
        k->level++;
    } else {
        /* the layer is done: the next pending layer comes */
        k->disk -= file_size(nxt);
        remove(nxt);
        int more = next_layer(k);
        if (more < 0)
            return more == E_FULL ? ST_LIMIT : more;
        if (!more) {
            progress(k, b->states);
            return ST_EXHAUSTED;
        }
    }
    if (save_state(k) < 0)
        return E_IO;
    /* what the new checkpoint no longer needs */
    if (k->layer != from_layer) {
        char pp[4096];
        pend_path(k, pp, sizeof pp, k->layer);
        k->disk -= file_size(pp);
        remove(pp);
    }
    progress(k, b->states);
    return ST_STAGE;
}

/* Set up a new search in an empty work directory: the root as the first
 * level of its layer. */
static int start(Disk *k)
{
    uint8_t rec[32];
    if (pack(k, k->root, rec) < 0)
        return ST_ERROR;
    k->layer = home_count(k->root);
    k->level = 0;
    k->states0 = 0;
    char lvl[4096];
    path_of(k, lvl, sizeof lvl, "L%02d-%05d.bin", k->layer, 0);
    FILE *f = open_file(lvl, "wb");
    if (!f)
        return E_IO;
    Sorted out = sorted_of(f);
    int rc = put_sorted(k, &out, rec);
    if (close_synced(f) != 0 && rc == 0)
        rc = E_IO;
    if (rc)
        return rc == E_FULL ? ST_LIMIT : rc;
    return save_state(k);
}

/* Back to the checkpoint: pending files cut to their sizes then, the
 * level's leftovers gone (and an earlier format's copies of a layer's set). */
static int restore(Disk *k)
{
    char path[4096];
    for (int h = 0; h <= NCARDS; h++) {
        pend_path(k, path, sizeof path, h);
        long long now = file_size(path);
        if (now > k->pend[h] && truncate(path, (off_t)k->pend[h]) != 0)
            return E_IO;
        if (now < k->pend[h])
            return -BK_ERR_RESUME; /* a file the checkpoint counted is gone */
        if (k->pend[h] == 0)
            remove(path);
    }
    for (int i = 0; i < MAXRUNS; i++) {
        path_of(k, path, sizeof path, "run-%05d.bin", i, 0);
        if (remove(path) != 0)
            break;
    }
    DIR *dp = opendir(k->opt->dir);
    if (dp) {
        struct dirent *e;
        while ((e = readdir(dp)) != NULL)
            if (e->d_name[0] == 'V' || (!k->v3 && strncmp(e->d_name, "pend-", 5) == 0)) {
                snprintf(path, sizeof path, "%s/%s", k->opt->dir, e->d_name);
                remove(path);
            }
        closedir(dp);
    }
    path_of(k, path, sizeof path, "L%02d-%05d.bin", k->layer, k->level + 1);
    remove(path);
    for (int h = k->layer + 1; h <= NCARDS; h++) { /* a layer begun after it */
        path_of(k, path, sizeof path, "L%02d-%05d.bin", h, 0);
        remove(path);
    }
    return k->v3 ? convert_v3(k) : 0;
}

int bk_exhaust_disk(const Rules *r, const Weights *w, Budget *b, const uint8_t *root_in,
                    const bk_disk *opt, CMove **line, size_t *nline, long long *disk_peak,
                    size_t *mem_peak)
{
    *line = NULL;
    *nline = 0;
    *disk_peak = 0;
    *mem_peak = 0;
    Disk *k = calloc(1, sizeof *k);
    if (!k)
        return -BK_ERR_NOMEM;
    k->rules = *r;
    k->r = &k->rules;
    k->w = w;
    k->b = b;
    k->opt = opt;
    memcpy(k->root, root_in, NCARDS);
    int fnd[4];
    foundations(k->root, fnd);
    int status;
    if (close_key(r, k->root, fnd) == NCARDS) {
        free(k);
        *line = malloc(sizeof(CMove));
        return *line ? ST_WIN : -BK_ERR_NOMEM;
    }
    delta_init(&k->d, r, k->root);
    int bits = 16 + NCARDS;
    for (int c = 0; c < NCARDS; c++)
        bits += k->d.bits[c];
    k->rec = bits <= 192 ? 24 : 32;
    if (bits > 256) {
        free(k);
        return ST_ERROR;
    }
    /* the buffer in memory: what the memory budget leaves, within reason */
    size_t room = b->max_bytes ? (b->max_bytes > b->bytes ? b->max_bytes - b->bytes : 0) : 0;
    size_t want = room ? room / 2 : (size_t)256 << 20;
    if (want > ((size_t)1 << 34))
        want = (size_t)1 << 34;
    k->cap = want / (size_t)k->rec;
    if (k->cap < 1024)
        k->cap = 1024;
    k->bytes = k->cap * (size_t)k->rec;
    k->buf = budget_alloc(b, k->bytes);
    k->kids = budget_alloc(b, MAXCHILD * sizeof(Child));
    if (!k->buf || !k->kids) {
        status = ST_LIMIT;
        if (!b->limit)
            b->limit = LIM_MEMORY;
        goto done;
    }
    /* a level is merged against every level of its layer at once, each an
     * open file: the soft limit on open files raised to the hard one */
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
    }
    int got = load_state(k);
    if (got < 0) {
        status = got;
        goto done;
    }
    if (got == 1 && !opt->resume) {
        status = -BK_ERR_RESUME;
        goto done;
    }
    k->disk = dir_bytes(opt->dir);
    k->disk_peak = k->disk;
    if (got == 1) {
        int rc = restore(k);
        if (rc) {
            status = rc == E_FULL ? ST_LIMIT : rc;
            goto done;
        }
    }
    k->disk = dir_bytes(opt->dir);
    if (got == 0) {
        int rc = start(k);
        if (rc) {
            status = rc;
            goto done;
        }
    }
    b->states = k->states0;
    progress(k, b->states);
    do {
        status = do_level(k, line, nline);
    } while (status == ST_STAGE);
done:
    *mem_peak = b->bytes;
    if (status == E_IO)
        status = -BK_ERR_IO;
    else if (status == E_FULL)
        status = ST_LIMIT;
    *disk_peak = k->disk_peak;
    budget_free(b, k->buf, k->bytes);
    budget_free(b, k->kids, MAXCHILD * sizeof(Child));
    free(k);
    return status;
}
