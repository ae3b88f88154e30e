/* run-timed OUT COMMAND [ARGS…]: runs COMMAND (its standard output to /dev/null) and appends
 * "wall-µs cpu-µs peak-kB" to OUT: elapsed time, user + system time and the peak resident
 * size of the process (wait4's rusage, to the microsecond; /usr/bin/time rounds to 10 ms).
 * Exits with the command's status. Built by scripts/bench.sh; never committed
 * as a binary. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: run-timed OUT COMMAND [ARGS…]\n"); return 2; }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t child = fork();
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (child < 0 || wait4(child, &status, 0, &usage) < 0) { perror("run-timed"); return 1; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long wall = (end.tv_sec - start.tv_sec) * 1000000LL + (end.tv_nsec - start.tv_nsec) / 1000;
    long long cpu = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000LL + usage.ru_utime.tv_usec +
                    usage.ru_stime.tv_usec;
    FILE *out = fopen(argv[1], "a");
    if (!out) { perror(argv[1]); return 1; }
    fprintf(out, "%lld %lld %ld\n", wall, cpu, usage.ru_maxrss);
    fclose(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
