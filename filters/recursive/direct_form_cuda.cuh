// The direct-form filters on CUDA: algorithm 4 of Nehab et al. 2011 per dimension, with the exact
// boundary seeds of Nehab & Maximo 2016, and the one-thread-per-line RT baseline. Their plan comes
// from the modal algebra through direct_form.h. Each pass filters the columns of `src` (one line
// per image column, causal down then anticausal up) and writes the result transposed into `dst`,
// so running it twice (image -> scratch -> output) filters columns and then rows with coalesced
// accesses only.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "filters/core/design.h"
#include "filters/core/extension.h"
#include "filters/core/frame_filter.cuh"
#include "filters/core/image.h"
#include "filters/core/io.cuh"

namespace rf::cuda {

// SharedLines: algorithm 4's seeds and block windows on lines held whole in shared memory (one
// channel, at most kSharedLineMax samples a line), a launch per axis that reads and writes the
// frame once; it takes a batch of `frames` whole.
enum class DirectAlgorithm { Alg4, RT, SharedLines };
inline constexpr int kSharedLineMax = 1024;

// Plans algorithm 4, RT or lines in shared memory for frames of this size and format (R32F,
// RGBA32F or RGBA8), columns filtered by filters.y and rows by filters.x. Beyond the direct
// form's limit (direct_form.h: its window condition) RT runs its lines in the modal form
// (PassModes) and the others throw InvalidParameter naming the limit; so do orders outside 1..5
// and two orders. cval is the constant extension's value.
std::unique_ptr<FrameFilter> make_direct_form_filter(const AxisDesigns& filters, Extension ext,
                                                     int width, int height, PixelFormat format,
                                                     DirectAlgorithm algorithm, double cval = 0.0,
                                                     int frames = 1);

// Whether algorithm 4 runs the block recursions of these filters on frames of this format in
// float (PassRecursion::float_blocks): 1 / |b0| small enough for a float window and float
// carries. Beyond it the window is double, and its FP64 steps make the block kernels
// compute-bound: at order 4 or 5 algorithm 4 then takes 1.1-1.5 of algorithm 5's time, where in
// float it can take less (the engine's auto, smoothing_route).
bool alg4_float_blocks(const AxisDesigns& filters, PixelFormat format);

inline constexpr int kMaxOrder = 5;
// Warps that share the carry completion of 32 lines (runs of ceil((nb - 1) / kCarryGroups) blocks).
inline constexpr int kCarryGroups = 16;

// Everything one pass needs, in five parts; built once at plan time, only src and dst change
// per frame.

// The lines of the pass.
struct PassShape {
  int lines = 0;     // lines filtered (columns of src)
  int n = 0;         // samples per line
  int nb = 0;        // blocks per line
  int last_len = 0;  // samples in the last block
  int pad = 0;       // extension samples read by the boundary seeds (direct_form::ExtensionTaps)
};

// The recursion, its extension, and the precision its carries and block steps run in.
struct PassRecursion {
  double b0 = 1.0, a[kMaxOrder] = {};
  // The next pass's coefficients: the column pass's output step filters its tile for the row
  // pass's block carries (PassCarries::next_pbar), with the rows' filter.
  double next_b0 = 1.0, next_a[kMaxOrder] = {};
  Extension ext = Extension::Ignore;
  double outside = 0.0;  // the value past the line's ends under Extension::Constant
  int causal_only = 0;
  // Carries stored in double rather than float. A float carry's rounding reaches the output
  // amplified by about 1 / b0 (the gain of 1 / (1 + sum a_k q^-k)): float for 1 / |b0| <= 200
  // (the Gaussians up to sigma 8 at order 3, sigma 4 at order 5: a few 1e-6 relative), double
  // beyond.
  int double_carries = 1;
  // Block recursions with a float window instead of a double one (causal_block in
  // direct_form_math.h) for well-conditioned filters (small 1 / |b0|, see kFloatWindowGain in
  // direct_form_cuda.cu, which bounds the error); a double window makes the block steps bound by
  // FP64 and float<->double conversions (16 per clock per SM on sm_90). Needs float carries.
  int float_blocks = 0;
};

// What the boundary seeds read (device).
struct PassSeeds {
  const double* g = nullptr;      // impulse response b0 h_j, pad + r taps
  const double* acorr = nullptr;  // its autocorrelation A(d) = sum_u g_u g_{u+d}, pad + r taps
  // The samples the seeds read (-1 for a zero): extend_index(-1 - i) for the causal terms
  // i < pad + r - 1, then extend_index(n + t) for the anticausal terms t < pad + r.
  const int* seed_index = nullptr;
  // The constant extension reads no sample: its seeds are the sums of the taps above times the
  // value (PassRecursion::outside), summed once when the pass is planned. by_constant: use them.
  int by_constant = 0;
  double causal_sum[kMaxOrder] = {};  // sum_{i>=k} g_{i-k} over the causal terms, per k
  double tail_sum[kMaxOrder] = {};    // sum_t A(|t - m|) over the anticausal terms, per m
};

// RT in mode states (modal.h), for a filter beyond the direct form's window limit: each line's
// recursions run as r first-order ones in double, seeded from the line's own samples through
// direct_form::line_maps(..., State::Modes). Per real-basis component b, at the first component
// of each mode: its pole and residue (real modes first, then pairs as (Re u, Im u)).
struct PassModes {
  int on = 0;
  int real_modes = 0;
  double p_re[kMaxOrder] = {}, p_im[kMaxOrder] = {}, c_re[kMaxOrder] = {}, c_im[kMaxOrder] = {};
  // A direct_form::SparseColumns on the device: the weights of samples [first, first + count),
  // column by column (r per sample).
  struct Map {
    const double* w = nullptr;
    int first = 0, count = 0;
  };
  Map causal_from_x, anticausal_from_x, anticausal_from_y;
  // Times PassRecursion::outside, under the constant extension.
  double causal_from_value[kMaxOrder] = {}, anticausal_from_value[kMaxOrder] = {};
};

// Block carries: Vec<C, float or double> [nb][r][lines] (device).
struct PassCarries {
  void* pbar = nullptr;  // incomplete prologues P_m(y-bar), eq. (17)
  void* ebar = nullptr;  // twice-incomplete epilogues E_m(z-hat), eq. (35)
  void* pst = nullptr;   // completed prologues P_{m-1}(y) entering each block, eq. (24)
  void* est = nullptr;   // completed epilogues E_{m+1}(z) entering each block, eq. (34)
  // When set, the output step also stores the next pass's pbar and ebar (its lines are this
  // pass's samples, its samples this pass's lines).
  void* next_pbar = nullptr;
  void* next_ebar = nullptr;
};

// Row-major r x r matrices (leading kMaxOrder stride unused beyond r).
struct PassMatrices {
  double T[kMaxOrder * kMaxOrder] = {}, M[kMaxOrder * kMaxOrder] = {},
                       U[kMaxOrder * kMaxOrder] = {};  // a full block
  double Tl[kMaxOrder * kMaxOrder] = {}, Ml[kMaxOrder * kMaxOrder] = {},
                        Ul[kMaxOrder * kMaxOrder] = {};  // the last block
  double N[kMaxOrder * kMaxOrder] = {};  // the anticausal end window from the causal one
  // T^m and U^m for the runs of m = ceil((nb - 1) / kCarryGroups) full blocks of the carry step.
  double Tm[kMaxOrder * kMaxOrder] = {}, Um[kMaxOrder * kMaxOrder] = {};
};

struct PassArgs {
  Io src, dst;
  PassShape shape;
  PassRecursion rec;
  PassSeeds seeds;
  PassModes modes;
  PassCarries carries;
  PassMatrices mats;
};

// The launches of one overlapped pass: block carries (unless the previous pass stored them),
// carry completion with the boundary seeds, output.
void launch_overlapped_pass(int order, int channels, const PassArgs& args, bool block_carries,
                            cudaStream_t stream);

// One thread per line (Ruijters-Thevenaz), along columns or rows, in the direct form or
// (args.modes.on) the modal form; `tmp` holds the causal result in float (it may equal dst when dst
// is float).
void launch_rt_pass(int order, int channels, const PassArgs& args, const Io& tmp, bool rows,
                    cudaStream_t stream);

}  // namespace rf::cuda
