/* The learned evaluation's inner loops (_evaluation.pyx): the hidden units' input sums
 * and the raw network's output, in C so that they can be written for vectors.
 *
 * Each loop is written once, as a macro over a vector type of N doubles, and made twice:
 * for four doubles (AVX2, compiled with GCC's or clang's target attribute) and for two
 * (SSE2 on any x86-64, NEON). jaipur_ai_pick_kernels() points the loops at the AVX2
 * versions where the processor has AVX2; a compiler without vector types gets plain C.
 *
 * Every version gives the same bits: each sum is made in one fixed order (a unit's input
 * sum adds its rows in the order given; the output adds unit j's term into lane j % 4,
 * each lane in the order of the units, then (lane 0 + lane 1) + (lane 2 + lane 3)), and
 * setup.py compiles with -ffp-contract=off, so that no multiply and add is fused into an
 * FMA (which rounds once, not twice) where the target has one. So a search is the same
 * whichever version runs. (Define JAIPUR_AI_NO_VECTORS to build the plain C, to check it.)
 */
#ifndef JAIPUR_AI_KERNELS_H
#define JAIPUR_AI_KERNELS_H

/* a[0:nh] += sum over r < k of scale[r] * W[row[r]][0:nh] (W's rows stride doubles
 * apart, nh a multiple of 8): sixteen units at a time, then eight, held in registers
 * across the rows. */
typedef void (*jaipur_ai_add_rows_fn)(const double* W, int stride, const int* row,
                                      const double* scale, int k, double* a, int nh);

/* sum over j < nh of v[j] * (relu(p[j]) - relu(o[j])), where p = p0 plus the rows rp of
 * W times sp (kp of them) and o = o0 plus the rows ro times so (ko): the raw network's
 * share of a logit from one side's sums and the other's, each moved by a few inputs
 * (none, with kp = ko = 0), without writing the moved sums anywhere. */
typedef double (*jaipur_ai_relu_out_fn)(const double* W, int stride, const double* v,
                                        const double* p0, const int* rp, const double* sp,
                                        int kp, const double* o0, const int* ro,
                                        const double* so, int ko, int nh);

#if defined(__GNUC__) && !defined(JAIPUR_AI_NO_VECTORS)

/* one block of B units of add_rows, from unit jb: B / N vectors of sums in registers */
#define JAIPUR_AI_ROWS_BLOCK(V, VU, N, B)                                              \
    {                                                                                  \
        V acc[B / N];                                                                  \
        for (int q = 0; q < B / N; q++) acc[q] = *(const VU*)(a + jb + q * N);         \
        for (int r = 0; r < k; r++) {                                                  \
            const double* w = W + (long)row[r] * stride + jb;                          \
            const double x = scale[r];                                                 \
            for (int q = 0; q < B / N; q++) acc[q] += *(const VU*)(w + q * N) * x;     \
        }                                                                              \
        for (int q = 0; q < B / N; q++) *(VU*)(a + jb + q * N) = acc[q];               \
    }

#define JAIPUR_AI_ADD_ROWS(NAME, V, VU, N)                                             \
    static void NAME(const double* W, int stride, const int* row, const double* scale, \
                     int k, double* a, int nh) {                                       \
        int jb = 0;                                                                    \
        for (; jb + 16 <= nh; jb += 16) JAIPUR_AI_ROWS_BLOCK(V, VU, N, 16)             \
        for (; jb < nh; jb += 8) JAIPUR_AI_ROWS_BLOCK(V, VU, N, 8)                     \
    }

/* relu by a mask: x where x > 0, else +0.0 (the bits of the plain `x if x > 0 else 0`) */
#define JAIPUR_AI_RELU_OUT(NAME, V, VU, VL, N)                                          \
    static double NAME(const double* W, int stride, const double* v,                    \
                       const double* p0, const int* rp, const double* sp, int kp,       \
                       const double* o0, const int* ro, const double* so, int ko,       \
                       int nh) {                                                        \
        const V zero = {0};                                                             \
        V lane[4 / N];                                                                  \
        double l[4];                                                                    \
        for (int q = 0; q < 4 / N; q++) lane[q] = zero;                                 \
        for (int jb = 0; jb < nh; jb += 8) {                                            \
            V p[8 / N], o[8 / N];                                                       \
            for (int q = 0; q < 8 / N; q++) {                                           \
                p[q] = *(const VU*)(p0 + jb + q * N);                                   \
                o[q] = *(const VU*)(o0 + jb + q * N);                                   \
            }                                                                           \
            for (int r = 0; r < kp; r++) {                                              \
                const double* w = W + (long)rp[r] * stride + jb;                        \
                for (int q = 0; q < 8 / N; q++) p[q] += *(const VU*)(w + q * N) * sp[r];\
            }                                                                           \
            for (int r = 0; r < ko; r++) {                                              \
                const double* w = W + (long)ro[r] * stride + jb;                        \
                for (int q = 0; q < 8 / N; q++) o[q] += *(const VU*)(w + q * N) * so[r];\
            }                                                                           \
            for (int q = 0; q < 8 / N; q++) {                                           \
                V up = (V)((VL)p[q] & (VL)(p[q] > zero));                               \
                V down = (V)((VL)o[q] & (VL)(o[q] > zero));                             \
                lane[q % (4 / N)] += *(const VU*)(v + jb + q * N) * (up - down);        \
            }                                                                           \
        }                                                                               \
        __builtin_memcpy(l, lane, sizeof(l));                                           \
        return (l[0] + l[1]) + (l[2] + l[3]);                                           \
    }

typedef double jaipur_ai_v2 __attribute__((vector_size(16)));
typedef double jaipur_ai_v2u __attribute__((vector_size(16), aligned(8), may_alias));
typedef long long jaipur_ai_l2 __attribute__((vector_size(16)));
JAIPUR_AI_ADD_ROWS(jaipur_ai_add_rows_v2, jaipur_ai_v2, jaipur_ai_v2u, 2)
JAIPUR_AI_RELU_OUT(jaipur_ai_relu_out_v2, jaipur_ai_v2, jaipur_ai_v2u, jaipur_ai_l2, 2)

/* not on macOS (its runtime lacks __builtin_cpu_supports' support) nor Windows (GCC
 * cannot align a 32-byte spill on its stack there): those take the two-double loops */
#if defined(__x86_64__) && !defined(__APPLE__) && !defined(_WIN32) && !defined(JAIPUR_AI_NO_AVX2)
#define JAIPUR_AI_HAS_AVX2_KERNELS 1
typedef double jaipur_ai_v4 __attribute__((vector_size(32)));
typedef double jaipur_ai_v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef long long jaipur_ai_l4 __attribute__((vector_size(32)));
__attribute__((target("avx2")))
JAIPUR_AI_ADD_ROWS(jaipur_ai_add_rows_v4, jaipur_ai_v4, jaipur_ai_v4u, 4)
__attribute__((target("avx2")))
JAIPUR_AI_RELU_OUT(jaipur_ai_relu_out_v4, jaipur_ai_v4, jaipur_ai_v4u, jaipur_ai_l4, 4)
#endif

#else  /* no vector types: the same sums, one double at a time */

static void jaipur_ai_add_rows_v2(const double* W, int stride, const int* row,
                                  const double* scale, int k, double* a, int nh) {
    for (int r = 0; r < k; r++)
        for (int j = 0; j < nh; j++)
            a[j] += W[(long)row[r] * stride + j] * scale[r];
}

static double jaipur_ai_relu_out_v2(const double* W, int stride, const double* v,
                                    const double* p0, const int* rp, const double* sp,
                                    int kp, const double* o0, const int* ro,
                                    const double* so, int ko, int nh) {
    double l[4] = {0.0, 0.0, 0.0, 0.0};
    for (int j = 0; j < nh; j++) {
        double p = p0[j], o = o0[j];
        for (int r = 0; r < kp; r++) p += W[(long)rp[r] * stride + j] * sp[r];
        for (int r = 0; r < ko; r++) o += W[(long)ro[r] * stride + j] * so[r];
        l[j % 4] += v[j] * ((p > 0.0 ? p : 0.0) - (o > 0.0 ? o : 0.0));
    }
    return (l[0] + l[1]) + (l[2] + l[3]);
}

#endif

/* the loops in use: the two-double versions until jaipur_ai_pick_kernels() runs */
static jaipur_ai_add_rows_fn jaipur_ai_add_rows = jaipur_ai_add_rows_v2;
static jaipur_ai_relu_out_fn jaipur_ai_relu_out = jaipur_ai_relu_out_v2;

/* Point the loops at this processor's best versions, or at the two-double ones with
 * generic set; returns the name of those chosen ("avx2" or "generic"). */
static const char* jaipur_ai_pick_kernels(int generic) {
    jaipur_ai_add_rows = jaipur_ai_add_rows_v2;
    jaipur_ai_relu_out = jaipur_ai_relu_out_v2;
#if defined(JAIPUR_AI_HAS_AVX2_KERNELS)
    __builtin_cpu_init();
    if (!generic && __builtin_cpu_supports("avx2")) {
        jaipur_ai_add_rows = jaipur_ai_add_rows_v4;
        jaipur_ai_relu_out = jaipur_ai_relu_out_v4;
        return "avx2";
    }
#endif
    return "generic";
}

#endif
