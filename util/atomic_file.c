#include "util/atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's umask, read without changing it (umask() sets and returns,
 * racing with other threads creating files); 022 when /proc does not say. */
static mode_t process_umask(void)
{
    mode_t m = 022;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return m;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Umask:", 6)) {
            m = (mode_t)strtoul(line + 6, NULL, 8) & 0777;
            break;
        }
    fclose(f);
    return m;
}

cz_status cz_atomic_file_open(cz_atomic_file *af, const char *path, cz_error *err)
{
    memset(af, 0, sizeof *af);
    if (strlen(path) >= sizeof af->path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: path too long", path);
    snprintf(af->path, sizeof af->path, "%s", path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmpXXXXXX", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0) return cz_error_set(err, CZ_ERR_IO, "%s: cannot create output file: %s", path, strerror(errno));
    /* mkstemp creates 0600; outputs get the usual 0666 & ~umask */
    (void)fchmod(fd, 0666 & ~process_umask());
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int e = errno;
        close(fd);
        unlink(af->tmp);
        return cz_error_set(err, CZ_ERR_IO, "%s: cannot open output file: %s", path, strerror(e));
    }
    return CZ_OK;
}

cz_status cz_atomic_file_commit(cz_atomic_file *af, cz_error *err)
{
    if (!af->fp) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: output file is not open", af->path);
    int bad = ferror(af->fp) || fflush(af->fp) != 0 || fsync(fileno(af->fp)) != 0;
    int e = errno;
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->fp = NULL;
    if (bad) {
        unlink(af->tmp);
        return cz_error_set(err, CZ_ERR_IO, "%s: write failed: %s", af->path, strerror(e));
    }
    if (rename(af->tmp, af->path) != 0) {
        e = errno;
        unlink(af->tmp);
        return cz_error_set(err, CZ_ERR_IO, "%s: cannot rename the finished file into place: %s", af->path, strerror(e));
    }
    return CZ_OK;
}

void cz_atomic_file_abort(cz_atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
        unlink(af->tmp);
    }
}
