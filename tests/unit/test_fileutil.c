/* fileutil: atomic replace, refusal of bad names, cleanup of crash leftovers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileutil.h"
#include "base/log.h"
#include "tmpdir.h"

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char data[4096];
    size_t n = fread(data, 1, sizeof data - 1, f);
    fclose(f);
    data[n] = '\0';
    return data;
}

static unsigned mode_of(const char *path) {
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (unsigned)(st.st_mode & 0777);
}

/* issue 18: exports are finance data: 0640 / 0750, narrower under a stricter umask */
static void test_modes(void **state) {
    (void)state;
    mode_t old = umask(022);
    char dir[] = "/tmp/spotledger-fm-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[128], path[160];
    snprintf(sub, sizeof sub, "%s/exports", dir);
    assert_int_equal(fileutil_ensure_dir(sub), ERR_OK);
    assert_int_equal(mode_of(sub), 0750);
    assert_int_equal(fileutil_write_atomic(sub, "a.csv", "x", 1), ERR_OK);
    snprintf(path, sizeof path, "%s/a.csv", sub);
    assert_int_equal(mode_of(path), 0640);
    umask(077);
    assert_int_equal(fileutil_write_atomic(sub, "b.csv", "x", 1), ERR_OK);
    snprintf(path, sizeof path, "%s/b.csv", sub);
    assert_int_equal(mode_of(path), 0600);
    umask(old);
    assert_int_equal(tmpdir_remove(dir), 0);
}

static void test_write_replace_clean(void **state) {
    (void)state;
    log_set_level(LOG_OFF);
    char dir[] = "/tmp/spotledger-fu-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/a.csv", dir);
    assert_int_equal(fileutil_write_atomic(dir, "a.csv", "one\r\n", 5), ERR_OK);
    assert_string_equal(slurp(path), "one\r\n");
    assert_int_equal(fileutil_write_atomic(dir, "a.csv", "two\r\n", 5), ERR_OK);
    assert_string_equal(slurp(path), "two\r\n");
    assert_int_equal(fileutil_write_atomic(dir, "../x", "x", 1), ERR_INVAL);
    assert_int_equal(fileutil_write_atomic(dir, ".hidden", "x", 1), ERR_INVAL);
    assert_int_equal(fileutil_write_atomic("/nonexistent-dir-xyz", "a", "x", 1), ERR_IO);
    /* a crash leftover is cleaned, the real file kept */
    char left[128];
    snprintf(left, sizeof left, "%s/.a.csv.tmp-999", dir);
    FILE *f = fopen(left, "w");
    fputs("partial", f);
    fclose(f);
    assert_int_equal(fileutil_clean_temporaries(dir), 1);
    assert_int_not_equal(access(left, F_OK), 0);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(fileutil_clean_temporaries("/nonexistent-dir-xyz"), 0);
    unlink(path);
    assert_int_equal(rmdir(dir), 0); /* nothing else was left behind */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_replace_clean),
        cmocka_unit_test(test_modes),
    };
    return cmocka_run_group_tests_name("fileutil", tests, NULL, NULL);
}
