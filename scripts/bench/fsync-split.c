/* fsync-split.so, preloaded into a program (LD_PRELOAD): times each fsync(2) it makes — the
 * wall time, and the calling thread's CPU time inside the call — and the time between one
 * fsync's return and the next one's start (the "gap": everything a line does besides
 * making itself durable). At exit, for the last 1,000 fsyncs (a script's lines, after its
 * set-up), appends one line to $FSYNC_SPLIT_OUT:
 *   "fsync median M mean A cpu C | gap median G mean H"   (microseconds)
 * Built by scripts/bench-fsync-split.sh; never committed as a binary. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define KEPT 4096
#define LAST 1000
static double walls[KEPT], cpus[KEPT], gaps[KEPT], lastEnd;
static long calls;
static int (*realFsync)(int);

static double microseconds(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
}

int fsync(int fd) {
    if (!realFsync) realFsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    double cpuStart = microseconds(CLOCK_THREAD_CPUTIME_ID), start = microseconds(CLOCK_MONOTONIC);
    int result = realFsync(fd);
    double end = microseconds(CLOCK_MONOTONIC), cpuEnd = microseconds(CLOCK_THREAD_CPUTIME_ID);
    if (calls < KEPT) {
        walls[calls] = end - start;
        cpus[calls] = cpuEnd - cpuStart;
        gaps[calls] = lastEnd > 0 ? start - lastEnd : 0;
    }
    calls++;
    lastEnd = end;
    return result;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summary(double *values, long from, long to, double *median, double *mean) {
    double sum = 0;
    for (long i = from; i < to; i++) sum += values[i];
    *mean = sum / (to - from);
    qsort(values + from, to - from, sizeof *values, ascending);
    *median = values[from + (to - from) / 2];
}

__attribute__((destructor)) static void report(void) {
    const char *out = getenv("FSYNC_SPLIT_OUT");
    long kept = calls < KEPT ? calls : KEPT;
    if (!out || kept < LAST + 1) return;
    long from = kept - LAST;
    double fsyncMedian, fsyncMean, cpuMedian, cpuMean, gapMedian, gapMean;
    summary(walls, from, kept, &fsyncMedian, &fsyncMean);
    summary(cpus, from, kept, &cpuMedian, &cpuMean);
    summary(gaps, from, kept, &gapMedian, &gapMean);
    FILE *file = fopen(out, "a");
    if (!file) return;
    fprintf(file, "fsync median %.0f mean %.0f cpu %.0f | gap median %.0f mean %.0f\n", fsyncMedian, fsyncMean,
        cpuMean, gapMedian, gapMean);
    fclose(file);
}
