/*
 * libFuzzer target: the input is a sequence of operations on one table, mirrored on the
 * reference model; every resolve, diff and rule count is checked. A mismatch aborts (a
 * finding); sanitizers catch memory errors and leaks. Run: make fuzz SECONDS=60.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

static const uint64_t states[8] = {0, 1, 4, 5, 8, 0x10000, 0x10004, 0x3000D};
static const csr_mode modes[6] = {CSR_EXACTLY, CSR_CONTAINING, CSR_NOT_CONTAINING,
                                  CSR_CONTAINING_ANY, CSR_CONTAINING_NONE, CSR_CUSTOM};
static const int32_t priorities[4] = {500, 750, 999, 1000};

typedef struct reader {
    const uint8_t *data;
    size_t size;
} reader;

static uint8_t next(reader *r) {
    if (r->size == 0) return 0;
    r->size--;
    return *r->data++;
}

static void fail(const char *what, int step) {
    fprintf(stderr, "mismatch at step %d: %s\n", step, what);
    abort();
}

static ref_model model;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memset(&model, 0, sizeof model);
    csr_table *table = NULL;
    if (csr_table_create(&table, NULL, NULL) != CSR_OK) abort();
    reader r = {data, size};
    csr_value next_value = 0;
    for (int step = 0; r.size > 0; step++) {
        uint8_t op = next(&r) % 10;
        uint8_t a = next(&r), b = next(&r);
        uint32_t t = a % REF_TARGETS, k = (a >> 2) % REF_KEY_PATHS;
        csr_descriptor d = ref_descriptor(modes[b % 6], states[(b >> 3) % 8] | states[(a >> 4) % 8],
                                          priorities[(b >> 6) % 4], (uint64_t)(a % 3 + 1));
        csr_status status;
        switch (op) {
        case 0: case 1: case 2:
            if (!ref_has_room(&model, t, k)) break;
            status = csr_set(table, t, k, &d, ++next_value % (CSR_VALUE_MAX + 1));
            if (status != CSR_OK) fail("csr_set failed", step);
            ref_set(&model, t, k, &d, next_value % (CSR_VALUE_MAX + 1));
            break;
        case 3:
            status = csr_remove(table, t, k, &d);
            if (status != (ref_remove(&model, t, k, &d) ? CSR_OK : CSR_NOT_FOUND)) fail("csr_remove", step);
            break;
        case 4:
            status = csr_remove_binding(table, t, k);
            if (status != (ref_remove_binding(&model, t, k) ? CSR_OK : CSR_NOT_FOUND)) fail("csr_remove_binding", step);
            break;
        case 5:
            status = csr_remove_target(table, t);
            if (status != (ref_remove_target(&model, t) ? CSR_OK : CSR_NOT_FOUND)) fail("csr_remove_target", step);
            break;
        case 6:
            if (b == 0) {
                csr_remove_all(table);
                ref_remove_all(&model);
            } else if (b & 1) {
                csr_clear_cache(table);
            } else {
                csr_release_cache(table);
            }
            break;
        default: {
            const char *mismatch = ref_check(table, &model, states[a % 8], states[b % 8]);
            if (mismatch != NULL) fail(mismatch, step);
            break;
        }
        }
    }
    const char *mismatch = ref_check(table, &model, 0, 5);
    if (mismatch != NULL) fail(mismatch, -1);
    csr_table_destroy(table);
    return 0;
}
