/* utime CMD ARGS...: run CMD with stdout and stderr to /dev/null and print
 * its user CPU time in seconds (getrusage of the child via wait4).  Exit
 * status 0 when CMD exited 0, else 1.  Built by bench/bench_pgo.sh. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: utime CMD ARGS...\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	int st = 0;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0)
		return 2;
	printf("%.4f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
