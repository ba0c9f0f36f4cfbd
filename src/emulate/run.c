/*
 * run.c: running a program under QEMU with spgo's plugin (spgo/emulate.h):
 * finding the plugin and the program, the temporary files, the signals,
 * and the conversion of what the plugin wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spgo/common.h"
#include "spgo/emulate.h"
#include "spgo/ground_truth.h"

char *spgo_emu_find_plugin(const char *given)
{
	if (given)
		return xstrdup(given);
	const char *env = getenv("SPGO_EMULATE_PLUGIN");
	if (env && *env)
		return xstrdup(env);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
		const char *rel[] = {"emulate/spgo-emulate.so", "../lib/spgo/spgo-emulate.so"};
		for (size_t i = 0; i < SPGO_ARRAY_LEN(rel); i++) {
			char *p = xasprintf("%s/%s", self, rel[i]);
			if (access(p, R_OK) == 0)
				return p;
			free(p);
		}
	}
	return NULL;
}

char *spgo_emu_which(const char *cmd)
{
	if (strchr(cmd, '/'))
		return xstrdup(cmd);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		/* an empty entry is the current directory, as for the shell */
		char *f = len ? xasprintf("%.*s/%s", (int)len, p, cmd) : xasprintf("./%s", cmd);
		struct stat st;
		if (stat(f, &st) == 0 && S_ISREG(st.st_mode) && access(f, X_OK) == 0)
			return f;
		free(f);
		if (!e)
			break;
		p = e;
	}
	spgo_error("%s: command not found", cmd);
	return NULL;
}

/* The #! line of a script: its interpreter and the command to emulate it
 * with ("/usr/bin/env python3" runs "python3"). */
static int script_error(const char *prog, char *hdr, char *const *args)
{
	char *line = hdr + 2;
	line[strcspn(line, "\n")] = 0;
	char *shebang = xstrdup(line + strspn(line, " \t")); /* as written */
	char *interp = line + strspn(line, " \t");
	char *rest = interp + strcspn(interp, " \t");
	if (*rest)
		*rest++ = 0;
	rest += strspn(rest, " \t");
	const char *run = interp; /* what to emulate */
	if (!strcmp(interp, "/usr/bin/env") || !strcmp(interp, "/bin/env")) {
		run = rest;
		rest = "";
	}
	char *more = xstrdup("");
	for (size_t i = 0; args && args[i]; i++) {
		char *m = xasprintf("%s %s", more, args[i]);
		free(more);
		more = m;
	}
	spgo_error("%s: a script (#!%s), not a program: emulate its interpreter: spgo emulate -- "
		   "%s%s%s %s%s", prog, shebang, run, *rest ? " " : "", rest, prog, more);
	free(more);
	free(shebang);
	return 126;
}

const char *spgo_emu_qemu_for(unsigned m)
{
	return m == 183 /* EM_AARCH64 */ ? "qemu-aarch64" : "qemu-x86_64";
}

const char *spgo_emu_sysroot_for(unsigned m)
{
	if (m != 183)
		return NULL;
	const char *env = getenv("QEMU_LD_PREFIX");
	return env && *env ? env : "/usr/aarch64-linux-gnu";
}

int spgo_emu_check_program(const char *prog, char *const *args, unsigned *out_machine)
{
	struct stat st;
	if (stat(prog, &st) != 0) {
		int e = errno;
		spgo_error("%s: %s", prog, e == ENOENT ? "not found (no such file)" : strerror(e));
		return e == ENOENT ? 127 : 126;
	}
	if (S_ISDIR(st.st_mode)) {
		spgo_error("%s: is a directory, not a program", prog);
		return 126;
	}
	if (!S_ISREG(st.st_mode) || access(prog, X_OK) != 0) {
		spgo_error("%s: not an executable file", prog);
		return 126;
	}
	char hdr[256] = {0};
	FILE *fp = fopen(prog, "rb");
	size_t n = fp ? fread(hdr, 1, sizeof hdr - 1, fp) : 0;
	if (fp)
		fclose(fp);
	if (n >= 2 && hdr[0] == '#' && hdr[1] == '!')
		return script_error(prog, hdr, args);
	if (n < 20 || memcmp(hdr, "\177ELF", 4)) {
		spgo_error("%s: not an ELF program (nor a #! script): QEMU cannot run it", prog);
		return 126;
	}
	unsigned machine = (unsigned char)hdr[18] | (unsigned)(unsigned char)hdr[19] << 8;
	if (hdr[4] != 2 || hdr[5] != 1 || (machine != 62 /* EM_X86_64 */ && machine != 183 /* EM_AARCH64 */)) {
		spgo_error("%s: an ELF program for another machine (class %d, e_machine %u): spgo emulate "
			   "runs x86-64 and AArch64 programs", prog, hdr[4], machine);
		return 126;
	}
	if (out_machine)
		*out_machine = machine;
	return 0;
}

/* The signal that stopped us, for the handler to hand on. */
static volatile sig_atomic_t got_signal;
static volatile pid_t qemu_pid;

static void on_signal(int sig)
{
	if (!got_signal || sig != SIGINT)
		got_signal = sig;
	if (qemu_pid > 0)
		kill(qemu_pid, sig);
}

/* Run QEMU; its wait status, or -1 with spgo_error(). */
static int run_qemu(char **qargv)
{
	struct sigaction sa, old[3];
	const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	got_signal = 0;
	/* Blocked until the child's pid is known, so none is lost. */
	sigset_t block, prev;
	sigemptyset(&block);
	for (int i = 0; i < 3; i++) {
		/* An ignored signal (nohup, a script's background job) stays
		 * ignored, for QEMU too: caught here, it reached a QEMU that
		 * ignores it, and spgo then said stopped or interrupted by it
		 * at the program's end, its output dropped. */
		sigaction(sigs[i], NULL, &old[i]);
		if (old[i].sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &prev);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		/* QEMU does not outlive us, whatever kills us. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &old[i], NULL);
		sigprocmask(SIG_SETMASK, &prev, NULL);
		execvp(qargv[0], qargv);
		fprintf(stderr, "spgo: %s: cannot run: %s\n", qargv[0], strerror(errno));
		_exit(127);
	}
	qemu_pid = pid;
	sigprocmask(SIG_SETMASK, &prev, NULL);
	int status = -1;
	if (pid < 0)
		spgo_error("fork: %s", strerror(errno));
	else
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	qemu_pid = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	return status;
}

int spgo_emu_run(const struct spgo_emu_options *o, struct spgo_emu_run *r)
{
	r->signal = 0;
	r->status = 0;
	memset(&r->stats, 0, sizeof r->stats);
	const char *tmpdir = getenv("TMPDIR");
	char *dir = xasprintf("%s/spgo-emulate.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		spgo_error("%s: cannot create a temporary directory: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	/* The trace grows with the run: it is unlinked as soon as it is
	 * open, so that nothing of it outlives spgo, even killed by SIGKILL.
	 * QEMU inherits the descriptor and the plugin opens it again by its
	 * /dev/fd name (before the program starts). */
	char *trace_file = xasprintf("%s/trace", dir), *counts = xasprintf("%s/counts", dir);
	int trace_fd = open(trace_file, O_RDWR | O_CREAT | O_EXCL, 0600);
	int trace_errno = errno;
	unlink(trace_file);
	free(trace_file);
	char *trace = xasprintf("/dev/fd/%d", trace_fd);
	char *cscounts = xasprintf("%s/cscounts", dir), *entries = xasprintf("%s/entries", dir);
	char *csargs = xstrdup("");
	struct spgo_emu_options oc = *o;
	if (o->truth_cs) {
		/* The plugin tells tail calls by the program's function entries. */
		if (spgo_gt_cs_write_entries(r->cmd[0], entries) < 0) {
			unlink(entries);
			rmdir(dir);
			if (trace_fd >= 0)
				close(trace_fd);
			free(trace), free(counts), free(cscounts), free(entries), free(csargs), free(dir);
			return -1;
		}
		free(csargs);
		csargs = xasprintf(",cscounts=%s,entries=%s,csdepth=%u", cscounts, entries,
				   o->max_stack > 1 ? o->max_stack - 1 : 1);
		oc.cscounts = cscounts;
	}
	char *pargs = xasprintf("%s,trace=%s%s%s%s,event=%s,period=%llu,lbr=%u,skid=%u,maxstack=%u,"
				"truncate=%u,wrongpath=%d,seed=%llu",
				r->plugin, trace, o->truth ? ",counts=" : "", o->truth ? counts : "", csargs,
				o->instructions ? "instructions" : "branches",
				(unsigned long long)o->period, o->lbr, o->skid, o->max_stack, o->truncate,
				o->wrong_path > 0 ? o->wrong_path : 0, (unsigned long long)o->seed);
	size_t nargs = 0;
	while (r->cmd[nargs])
		nargs++;
	char **qargv = xcalloc(nargs + 6, sizeof *qargv);
	size_t qi = 0;
	qargv[qi++] = (char *)r->qemu;
	if (o->sysroot) { /* the guest's libraries and ELF interpreter */
		qargv[qi++] = "-L";
		qargv[qi++] = (char *)o->sysroot;
	}
	qargv[qi++] = "-plugin";
	qargv[qi++] = pargs;
	memcpy(qargv + qi, r->cmd, nargs * sizeof *qargv);
	int rc = -1;
	struct stat st;
	if (trace_fd < 0) {
		spgo_error("%s: cannot create the trace: %s", dir, strerror(trace_errno));
		goto out;
	}
	if (strchr(dir, ',') || strchr(r->plugin, ',')) {
		spgo_error("%s: paths given to the QEMU plugin cannot contain ','", dir);
		goto out;
	}
	spgo_info("running %s with %s", r->qemu, r->plugin);
	double t0 = spgo_now();
	int status = run_qemu(qargv);
	r->seconds = spgo_now() - t0;
	r->signal = got_signal;
	if (status == -1)
		goto out;
	if (r->signal == SIGTERM || r->signal == SIGHUP) {
		spgo_error("stopped by signal %d (%s): nothing written", r->signal, strsignal(r->signal));
		goto out;
	}
	int traced = fstat(trace_fd, &st) == 0 && st.st_size > 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !traced) {
		spgo_error("%s: did not start", r->qemu); /* reported by the child */
		goto out;
	}
	r->status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	if (r->signal == SIGINT && (o->truth || o->truth_cs))
		spgo_error("interrupted (SIGINT) before %s ended: nothing written (the ground truth "
			   "is counted when the program ends)", r->cmd[0]);
	else if (r->signal == SIGINT && st.st_size <= 8)
		spgo_error("interrupted (SIGINT) before the first sample: nothing written");
	else if (!traced)
		spgo_error("the QEMU plugin wrote no trace (did qemu load it?)");
	else if (st.st_size <= 8)
		spgo_error("%s: did not run under %s", r->cmd[0], r->qemu);
	else
		rc = spgo_emu_convert(&oc, trace, counts, r->argc, r->argv, &r->stats);
	/* The program's own exit status, when it said it (not QEMU's, which
	 * differs when QEMU itself fails). */
	if (rc == 0 && r->stats.exited && WIFEXITED(status))
		r->status = r->stats.exit_code & 0xff;
out:
	if (trace_fd >= 0)
		close(trace_fd);
	unlink(counts);
	unlink(cscounts);
	unlink(entries);
	rmdir(dir);
	free(qargv);
	free(pargs);
	free(trace);
	free(counts);
	free(cscounts);
	free(entries);
	free(csargs);
	free(dir);
	return rc;
}
