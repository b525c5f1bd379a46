// The fully overlapped block-parallel recursive filter in mode states: algorithm 5 of Nehab et al.
// 2011 and algorithm 6 of Nehab & Maximo 2016, with the exact initial feedbacks of every extension
// computed from the carries (modal.h), whatever sigma. Plain C++, no CUDA types: the plan's
// constants, the carry layout, and the stages the CPU and CUDA implementations share.
//
// The image is cut into 32 x 32 blocks B_{m,n} (m: block row, n: block column). Columns are
// filtered down (F) and up (R), then rows right (F^T) and left (R^T). Stages:
//   1. perimeters, in parallel for every block from the input block alone (zero entering
//      states): the causal state leaving each column P(Ybar), the anticausal state leaving it
//      at the top E(Zhat) (eqs. 17, 35); the same along the rows of the twice-filtered block,
//      P^T(Ubar), E^T(Vbar) (eqs. 38, 40); for mirror the anticausal recursion of the input itself
//      per column and of the twice-filtered block per row; for clamp the first and last samples.
//   2. column carries, in parallel for every column: the exact causal state entering the column
//      from the extension, then P_{m-1,n}(Y) for every block (eq. 24); the anticausal state
//      entering from the bottom, then E_{m+1,n}(Z) (eq. 34).
//   3. fix-ups: the column carries' share of each block's row perimeters,
//      dZ = A_RE E_{m+1,n}(Z) + A_RB A_FP P_{m-1,n}(Y), reduced to P^T(T(A_FB) dZ),
//      E^T(H(A_RB) A_FB dZ) (eqs. 37, 39) and, for mirror, H(A_RB) dZ; for clamp dZ's first and
//      last columns. Algorithm 6 does them for every block in parallel as soon as a column's
//      carries are complete (step 6.3); algorithm 5 inside the row scan (step 5.3).
//   4. row carries, in parallel for every row, as in 2 with the fixed-up perimeters.
//   5. output, in parallel for every block: the four recursions from the complete carries.
// Carries are mode states (modal.h) stored as floats, r per line per block; the scans run in
// double on the CPU and in float in the kernels (fully_overlapped_math.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/core/design.h"
#include "filters/core/extension.h"
#include "filters/recursive/modal.h"

namespace rf::fully_overlapped {

inline constexpr int kBlock = 32;
inline constexpr int kMaxOrder = 5;
// Warps sharing the scans of 32 lines: warp g owns a run of consecutive blocks.
inline constexpr int kMaxRuns = 16;
// Blocks of a run that a scan holds whole in its registers from its first load to its last store
// (the CUDA scan's chunk): 8 at order 1, 4 above, where its registers hold no more.
constexpr int whole_run_blocks(int order) {
  return order <= 1 ? 8 : 4;
}
// Blocks a run takes at least (but a line's last run): shorter runs spend more on stitching than
// on their chains, and longer ones are no longer whole above order 1.
inline constexpr int kMinRunBlocks = whole_run_blocks(kMaxOrder);

// What runs a scan's CTAs at once (a CTA per 32 lines, a warp per run): the device's SMs, the
// scan warps an SM holds, which the scan kernel's registers set (128 a thread, its launch bound:
// 16 warps of 64), and its L2 cache. The runs are chosen from it (make_plan): the CPU plans for
// an H100's; the CUDA filter queries its device.
struct ScanSlots {
  int sms = 132;
  int warps_per_sm = 16;
  std::int64_t l2_bytes = std::int64_t(50) << 20;
};

// The runs a scan of `groups` groups of 32 lines of `blocks` blocks each takes, a group's carries
// `group_bytes` bytes: of 1 to kMaxRuns warps a CTA, runs of at least kMinRunBlocks blocks but the
// last, the least estimated time. A CTA takes about a fixed part (its constants, the first loads of
// its phases, its barriers: as long as 2.5 blocks of a run), its run's blocks, and its stitching (a
// quarter block a run); the CTAs that do not fit the SMs at once wait for a whole CTA's time. So
// a frame with few lines splits its chains into runs to fill the SMs, and many lines (four
// channels, a batch of frames) take as many runs as fit one wave, or whole chains. But a scan
// reads its runs' carries again in its later phases: the CTAs running at once must hold no more
// carries than two thirds of the L2 cache (measured on an H200's 60 MB: 38 MB at once ran faster
// than in more waves, 50 MB slower), or those reads go to DRAM; past it, the most runs, the
// fewest CTAs at once (docs/bench/README.md, "Scans in whole waves").
int scan_runs(std::int64_t groups, int blocks, std::int64_t group_bytes, const ScanSlots& slots);

// Rows of W (fix-up reductions): T(A_FB), H(A_RB) A_FB and H(A_RB), r each, then the block's
// first and last sample (clamp).
inline constexpr int kMaxFixRows = 3 * kMaxOrder + 2;

// Where stage 3 runs: algorithm 6 fixes the row perimeters up in the column scan, algorithm 5 in
// the row scan. Both give the same result; the CPU and CUDA filters take either.
enum class FixPlace { ColumnScan, RowScan };

// What an extension's seeds read besides the carries: the anticausal recursion of the input
// itself, the raw heads (mirror, reflect101), and each line's first and last sample (clamp,
// reflect101).
RF_HD constexpr bool reads_heads(Extension e) {
  return e == Extension::Mirror || e == Extension::Reflect101;
}
RF_HD constexpr bool reads_edges(Extension e) {
  return e == Extension::Clamp || e == Extension::Reflect101;
}

// The exact seeds of a line's extensions (modal.h, Seeds), in the layout of LineMatrices: dense
// r x r maps (stride kMaxOrder), vectors, and the maps that act on each mode alone as multipliers
// in the state's layout (a real mode's scalar, a pair's Re and Im: r FMAs instead of r^2).
template <class T>
struct LineSeeds {
  static constexpr int kSquare = kMaxOrder * kMaxOrder;
  T S[kMaxOrder] = {}, clamp_tail[kMaxOrder] = {};
  T G[kSquare] = {}, Q_n[kSquare] = {}, Q_2n[kSquare] = {}, D_n[kSquare] = {}, M[kSquare] = {};
  T R_h[kSquare] = {}, R_u[kSquare] = {}, W101[kSquare] = {};  // reflect101
  T r_first[kMaxOrder] = {}, r_last[kMaxOrder] = {}, w_last[kMaxOrder] = {};
  T Q_n_m[kMaxOrder] = {}, Q_2n_m[kMaxOrder] = {}, D_n_m[kMaxOrder] = {}, R_h_m[kMaxOrder] = {},
    R_u_m[kMaxOrder] = {};

  // The same seeds rounded to U.
  template <class U>
  LineSeeds<U> as() const {
    LineSeeds<U> o;
    auto copy = [](const T* src, U* dst, int count) {
      for (int i = 0; i < count; ++i) dst[i] = U(src[i]);
    };
    const T* vectors[] = {S,     clamp_tail, r_first, r_last, w_last,
                          Q_n_m, Q_2n_m,     D_n_m,   R_h_m,  R_u_m};
    U* vectors_out[] = {o.S,     o.clamp_tail, o.r_first, o.r_last, o.w_last,
                        o.Q_n_m, o.Q_2n_m,     o.D_n_m,   o.R_h_m,  o.R_u_m};
    for (int i = 0; i < 10; ++i) copy(vectors[i], vectors_out[i], kMaxOrder);
    const T* squares[] = {G, Q_n, Q_2n, D_n, M, R_h, R_u, W101};
    U* squares_out[] = {o.G, o.Q_n, o.Q_2n, o.D_n, o.M, o.R_h, o.R_u, o.W101};
    for (int i = 0; i < 8; ++i) copy(squares[i], squares_out[i], kSquare);
    return o;
  }
};

// One line direction: columns (n = height) or rows (n = width). Row-major r x r matrices are
// stored with stride kMaxOrder; T is double on the host, float where the kernels read them.
template <class T>
struct LineMatrices {
  int n = 0;         // samples per line
  int blocks = 0;    // nb = ceil(n / 32)
  int last_len = 0;  // samples in the last block
  int runs = 0;      // warps per 32 lines: runs of run_len blocks, the last one possibly shorter
  int run_len = 0;
  T D[kMaxOrder * kMaxOrder] = {}, D_last[kMaxOrder * kMaxOrder] = {};  // across a block, eq. (14)
  // The causal entering state's share of the anticausal perimeter, eq. (34): full, last block.
  T H_ARB_AFP[kMaxOrder * kMaxOrder] = {}, H_ARB_AFP_last[kMaxOrder * kMaxOrder] = {};
  T D_run[kMaxOrder * kMaxOrder] = {}, D_last_run[kMaxOrder * kMaxOrder] = {};  // across runs
  // The block transfers as multipliers per mode (LineSeeds' layout): what the kernels apply.
  T D_m[kMaxOrder] = {}, D_last_m[kMaxOrder] = {}, D_run_m[kMaxOrder] = {},
    D_last_run_m[kMaxOrder] = {};
  LineSeeds<T> seeds;

  // The same constants rounded to U.
  template <class U>
  LineMatrices<U> as() const {
    LineMatrices<U> o;
    o.n = n;
    o.blocks = blocks;
    o.last_len = last_len;
    o.runs = runs;
    o.run_len = run_len;
    auto copy = [](const T* src, U* dst, int count) {
      for (int i = 0; i < count; ++i) dst[i] = U(src[i]);
    };
    constexpr int kSquare = kMaxOrder * kMaxOrder;
    copy(D, o.D, kSquare);
    copy(D_last, o.D_last, kSquare);
    copy(H_ARB_AFP, o.H_ARB_AFP, kSquare);
    copy(H_ARB_AFP_last, o.H_ARB_AFP_last, kSquare);
    copy(D_run, o.D_run, kSquare);
    copy(D_last_run, o.D_last_run, kSquare);
    copy(D_m, o.D_m, kMaxOrder);
    copy(D_last_m, o.D_last_m, kMaxOrder);
    copy(D_run_m, o.D_run_m, kMaxOrder);
    copy(D_last_run_m, o.D_last_run_m, kMaxOrder);
    o.seeds = seeds.template as<U>();
    return o;
  }
};
using LineConstants = LineMatrices<double>;

// The fix-ups of stage 3 for the four kinds of block (full or last block row x full or last
// block column): index [last_row][...] for the column matrices, [last_col][...] for W.
struct FixConstants {
  int rows_w = 0;  // rows of W used: r, 2r, 3r, plus 2 for clamp
  // dZ(i, j) = sum_k A_RE(i, k) E_j(k) + ARB_AFP(i, k) P_j(k); causal-only filters (Z = Y) hold
  // A_FP in ARB_AFP and zeros in A_RE.
  double A_RE[2][kBlock][kMaxOrder] = {}, ARB_AFP[2][kBlock][kMaxOrder] = {};
  // fix(i, a) = sum_j W(a, j) dZ(i, j); columns past the block's length are zero.
  double W[2][kMaxFixRows][kBlock] = {};
};

// Where each part of W starts (rows_w tells which exist).
struct FixRows {
  int tail = 0;               // T(A_FB): added to the row causal perimeter
  int head = 0;               // H(A_RB) A_FB: added to the row anticausal perimeter
  int raw = -1;               // H(A_RB): added to the row raw anticausal head (mirror, reflect101)
  int first = -1, last = -1;  // dZ's first and last column (clamp, reflect101)
};

// Everything the stages need, computed in extended precision at plan time.
struct Plan {
  // The modal forms of the columns' filter (y) and the rows' (x): one order, one kind of poles.
  modal::Form column_form, row_form;
  Extension ext = Extension::Ignore;
  int width = 0, height = 0, channels = 1;
  int block_rows = 0, block_cols = 0;       // MB, NB
  int padded_width = 0, padded_height = 0;  // 32 NB, 32 MB: lines of a channel, padded
  LineConstants columns, rows;
  FixConstants fix;
  FixRows fix_rows;
  // What the columns and the rows see past their ends under Extension::Constant (zero for the
  // other extensions): the clamp's seeds take it for the end samples.
  ConstantValues constant;
  bool heads() const { return reads_heads(ext); }
  bool edges() const { return reads_edges(ext); }
  // Lines of all channels (channel-major: line c * padded + x), and carries per array.
  std::size_t column_lines() const { return std::size_t(channels) * padded_width; }
  std::size_t row_lines() const { return std::size_t(channels) * padded_height; }
  std::size_t column_carries() const {
    return std::size_t(block_rows) * column_form.order * column_lines();
  }
  std::size_t row_carries() const { return std::size_t(block_cols) * row_form.order * row_lines(); }
  int order() const { return column_form.order; }
  bool causal_only() const { return column_form.causal_only; }
};

// A difference of the filtered image taken in the output stage (filters/core/derivative.h): of
// order 0, 1 or 2 along x and along y, its weights times `scale`; no buffer, no pass of its own.
// The samples one past a block come from its carries: the complete output at the next block's
// first sample is the mode sum of the anticausal state entering from there, the one before the
// block an anticausal step from the state leaving it, fed the causal output there (the mode sum
// of the causal state entering it). At the image's ends those states are the extension's exact
// seeds, so along x every extension holds. Along y the rows' carries of the rows above and below a
// row are differenced with it, so the rows beyond the image must be the column-filtered image's
// own rows continued by the extension: mirror, reflect101 and repeat (continues_smoothed). Under
// clamp, zero and constant (pads_rows) the filter runs on the image with a row of its extension
// above and below, read from the image itself: that frame's extension is the image's
// (derivative.h), and its rows beyond the image are real rows with carries of their own. The
// output is the image's rows.
struct OutputDifference {
  int x = 0, y = 0;
  double scale = 1.0;
  bool any() const { return x != 0 || y != 0; }
};

// Whether the output stage takes `d` under `ext`: a difference under every extension but Ignore.
bool takes_difference(const OutputDifference& d, Extension ext);

// Whether the filter taking `d` runs on the image padded by a row each way (above).
bool pads_rows(const OutputDifference& d, Extension ext);

// How far the mode sum may cancel before the fully overlapped algorithms stop being more exact
// than float: above this (repeated or near-repeated poles), callers use another algorithm.
inline constexpr double kMaxCondition = 64.0;

// Whether the filter's mode states carry it (distinct poles, condition <= kMaxCondition); `why`
// says why not.
bool carries_modes(const Recursive& f, std::string* why = nullptr);

// Whether the mode states carry both filters.
bool carries_modes(const AxisDesigns& filters, std::string* why = nullptr);

// Columns run filters.y, rows filters.x. Throws InvalidParameter for an empty image, an order
// outside 1..5, channels other than 1 or 4, a filter the mode states cannot carry (repeated poles,
// a condition above kMaxCondition, an extension of the summed-area table other than zero or
// ignore), or two filters whose modes differ in number or kind.
// `frames` is the batch the scans run at once, `slots` what runs them (their lines and slots
// set their runs: scan_runs).
Plan make_plan(const AxisDesigns& filters, Extension ext, int width, int height, int channels,
               double cval = 0.0, int frames = 1, const ScanSlots& slots = {});

}  // namespace rf::fully_overlapped
