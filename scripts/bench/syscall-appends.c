/* syscall-appends FILE N: N appends of 157 bytes to FILE with the system calls a script's
 * `add` line makes around its append, and nothing else: a look at the journal before the
 * command (lstat of the path), the nonce (getrandom), the lock (flock), the size check
 * (fstat), pwrite and fsync, the check that the path still names the file (lstat), the
 * lock let go, and the "Saved" line (write to standard output). Run by
 * scripts/bench-fsync-split.sh beside the bound and the program: how much of a line's time
 * its system calls are, the gap and the slower fsync they bring. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0600);
    if (fd < 0) return 1;
    static const char saved[] = "Saved p5: \"Tiny wallet\" for Dad.\n";
    char payload[157] = {1}, nonce[24];
    struct stat status;
    off_t offset = 0;
    for (int i = 0, n = atoi(argv[2]); i < n; i++) {
        if (lstat(argv[1], &status) != 0 || getrandom(nonce, sizeof nonce, 0) != sizeof nonce) return 1;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &status) != 0) return 1;
        if (pwrite(fd, payload, sizeof payload, offset) != sizeof payload || fsync(fd) != 0) return 1;
        offset += sizeof payload;
        if (lstat(argv[1], &status) != 0 || flock(fd, LOCK_UN) != 0) return 1;
        if (write(STDOUT_FILENO, saved, sizeof saved - 1) != sizeof saved - 1) return 1;
    }
    close(fd);
    unlink(argv[1]);
    return 0;
}
