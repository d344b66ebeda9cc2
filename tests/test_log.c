/*
 * test_log: the log hook (util/log.h): levels pass up to the configured
 * one and no further; a NULL logger or one without a function is silent
 * and CZ_LOG does not even evaluate its arguments then; lines are formatted
 * with the component, truncated (not overrun) past 1 KiB; level names parse
 * in any case and unknown ones are refused.
 */
#include <string.h>

#include "test_util.h"
#include "util/log.h"

typedef struct {
    int lines;
    cz_log_level level;
    char component[32];
    char msg[2048];
} sink_t;

static void sink(void *ctx, cz_log_level level, const char *component, const char *msg)
{
    sink_t *s = ctx;
    s->lines++;
    s->level = level;
    snprintf(s->component, sizeof s->component, "%s", component);
    snprintf(s->msg, sizeof s->msg, "%s", msg);
}

static int evaluated;
static int count_eval(void) { return ++evaluated; }

int main(void)
{
    sink_t s;
    memset(&s, 0, sizeof s);
    cz_logger l = {sink, &s, CZ_LOG_INFO};
    CZ_LOG(&l, CZ_LOG_ERROR, "engine", "device %d failed: %s", 3, "gone");
    CHECK(s.lines == 1 && s.level == CZ_LOG_ERROR && !strcmp(s.component, "engine") &&
          !strcmp(s.msg, "device 3 failed: gone"));
    CZ_LOG(&l, CZ_LOG_WARN, "pool", "w");
    CZ_LOG(&l, CZ_LOG_INFO, "pool", "i");
    CHECK(s.lines == 3 && s.level == CZ_LOG_INFO);
    evaluated = 0;
    CZ_LOG(&l, CZ_LOG_DEBUG, "engine", "%d", count_eval());
    CHECK(s.lines == 3 && evaluated == 0); /* the level is checked before formatting */
    CHECK(cz_log_enabled(&l, CZ_LOG_INFO) && !cz_log_enabled(&l, CZ_LOG_DEBUG));
    l.level = CZ_LOG_DEBUG;
    CZ_LOG(&l, CZ_LOG_DEBUG, NULL, "%d", count_eval());
    CHECK(s.lines == 4 && evaluated == 1 && !strcmp(s.component, "cuzk") && !strcmp(s.msg, "1"));
    l.level = CZ_LOG_ERROR;
    CZ_LOG(&l, CZ_LOG_WARN, "x", "no");
    CHECK(s.lines == 4);

    /* silent loggers */
    CZ_LOG((const cz_logger *)NULL, CZ_LOG_ERROR, "x", "%d", count_eval());
    cz_logger none = {NULL, &s, CZ_LOG_DEBUG};
    CZ_LOG(&none, CZ_LOG_ERROR, "x", "%d", count_eval());
    cz_log(&none, CZ_LOG_ERROR, "x", "direct");
    CHECK(s.lines == 4 && evaluated == 1 && !cz_log_enabled(NULL, CZ_LOG_ERROR));

    /* long lines are cut at 1 KiB, NUL-terminated */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    l.level = CZ_LOG_DEBUG;
    cz_log(&l, CZ_LOG_INFO, "x", "%s", big);
    CHECK(s.lines == 5 && strlen(s.msg) == 1023);

    /* names */
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++) {
        cz_log_level lv = CZ_LOG_ERROR;
        CHECK(!strcmp(cz_log_level_name((cz_log_level)i), names[i]));
        CHECK(cz_log_level_parse(names[i], &lv) == CZ_OK && lv == (cz_log_level)i);
    }
    cz_log_level lv = CZ_LOG_ERROR;
    CHECK(cz_log_level_parse("DEBUG", &lv) == CZ_OK && lv == CZ_LOG_DEBUG);
    CHECK(cz_log_level_parse("Warning", &lv) == CZ_OK && lv == CZ_LOG_WARN);
    CHECK(cz_log_level_parse("verbose", &lv) == CZ_ERR_INVALID_ARG && lv == CZ_LOG_WARN);
    CHECK(cz_log_level_parse(NULL, &lv) == CZ_ERR_INVALID_ARG);
    CHECK(!strcmp(cz_log_level_name((cz_log_level)9), "unknown"));
    return cz_test_finish("test_log");
}
