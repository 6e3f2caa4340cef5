/*
 * cachesim.h — an LRU model of the last-level cache, the one the Arm paper's analytical
 * model feeds (Arm'19 §V: "The data flow graph generates the memory requests which are fed
 * to a least recently used (LRU) cache of size 12 MB ... Cache misses, along with
 * writeback, are used to measure the read and write traffic to and from the memory").
 *
 * The cache is write-back and write-allocate, like the LLC of the SoCs the paper models
 * and like valgrind's cachegrind, against which bench/analyze_validate.sh checks it:
 *
 *   read traffic  = (read misses + write misses) * line   every miss fills a line
 *   write traffic = write-backs * line                    a dirty line leaves the cache
 *
 * Fully associative by default; with assoc = W > 0 it has capacity / (W * line) sets, a line
 * address a maps to set a mod sets (cachegrind's bit selection when sets is a power of two),
 * and LRU runs within each set. Accesses are byte ranges, streamed one line at a time; each
 * costs O(1): a hash map from line address to a node of a doubly linked LRU list.
 */
#ifndef LSTMC_CACHESIM_H
#define LSTMC_CACHESIM_H

#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct cachesim cachesim;

typedef struct cachesim_config {
    int64_t capacity; /* bytes; a multiple of line (and of assoc * line) */
    int32_t assoc;    /* ways per set; 0 = fully associative */
    int32_t line;     /* bytes, a power of two; 0 = 64 */
} cachesim_config;

typedef struct cachesim_stats {
    int64_t reads, writes;             /* line accesses */
    int64_t read_misses, write_misses; /* line fills from memory */
    int64_t writebacks;                /* dirty lines written to memory */
} cachesim_stats;

/*
 * A new, empty cache in arena a (everything it needs is allocated here, once: about
 * 32 bytes per line of capacity). Returns NULL after reporting through d when the
 * configuration is inconsistent (capacity not a positive multiple of assoc * line, a line
 * that is not a power of two, more than 2^31 lines).
 */
cachesim *cachesim_new(arena *a, const cachesim_config *cfg, diag *d);

/*
 * Read or write the bytes [addr, addr + bytes): every line they touch becomes the most
 * recently used of its set. A missing line is filled (a miss), evicting the set's least
 * recently used line first when the set is full; an evicted dirty line is a write-back.
 * A write marks the line dirty. bytes 0 touches nothing.
 */
void cachesim_read(cachesim *c, uint64_t addr, uint64_t bytes);
void cachesim_write(cachesim *c, uint64_t addr, uint64_t bytes);

/* Write back every dirty line (counted in writebacks); the lines stay cached, clean. Call
 * at the end of a program so that the outputs it leaves dirty count as write traffic. */
void cachesim_flush(cachesim *c);

/* The counters since cachesim_new or the last cachesim_reset_stats. */
cachesim_stats cachesim_get_stats(const cachesim *c);

/* Zero the counters; the cache contents stay (to measure a warm run). */
void cachesim_reset_stats(cachesim *c);

/* Bytes of the line size, the bytes of read traffic and of write traffic in s. */
int32_t cachesim_line(const cachesim *c);
int64_t cachesim_read_bytes(const cachesim *c, const cachesim_stats *s);
int64_t cachesim_write_bytes(const cachesim *c, const cachesim_stats *s);

#endif /* LSTMC_CACHESIM_H */
