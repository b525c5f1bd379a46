#include "filters/recursive/fully_overlapped.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "filters/core/derivative.h"
#include "filters/core/errors.h"

namespace rf::fully_overlapped {

namespace {

void put(const modal::Mat& m, double* dst) {
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) dst[i * kMaxOrder + j] = m(i, j);
}

// The multipliers of a map that acts on each mode alone (block diagonal in the real basis).
void put_modes(const modal::Form& form, const modal::Mat& m, double* dst) {
  for (int k = 0; k < form.real_modes; ++k) dst[k] = m(k, k);
  for (int j = 0; j < form.complex_pairs; ++j) {
    const int b = form.real_modes + 2 * j;
    dst[b] = m(b, b);
    dst[b + 1] = m(b + 1, b);
  }
}

// The constants of `lines` lines of n samples scanned at once (every channel and frame), the
// scan reading `arrays` arrays of their carries.
LineConstants line_constants(const modal::Form& form, int n, std::int64_t lines, int arrays,
                             const ScanSlots& slots) {
  LineConstants c;
  c.n = n;
  c.blocks = (n + kBlock - 1) / kBlock;
  c.last_len = n - (c.blocks - 1) * kBlock;
  const std::int64_t group_bytes =
      std::int64_t(kBlock) * c.blocks * form.order * arrays * std::int64_t(sizeof(float));
  const int runs = scan_runs((lines + kBlock - 1) / kBlock, c.blocks, group_bytes, slots);
  c.run_len = (c.blocks + runs - 1) / runs;
  c.runs = (c.blocks + c.run_len - 1) / c.run_len;
  const modal::BlockMatrices full = modal::block_matrices(form, kBlock);
  const modal::BlockMatrices last = modal::block_matrices(form, c.last_len);
  put(full.D, c.D);
  put(last.D, c.D_last);
  put(full.H_ARB_AFP, c.H_ARB_AFP);
  put(last.H_ARB_AFP, c.H_ARB_AFP_last);
  put(modal::power(full.D, c.run_len), c.D_run);
  const int last_run_blocks = c.blocks - (c.runs - 1) * c.run_len;
  put(last.D * modal::power(full.D, last_run_blocks - 1), c.D_last_run);
  const modal::Seeds sd = modal::seeds(form, n);
  std::copy(sd.S.begin(), sd.S.end(), c.seeds.S);
  std::copy(sd.clamp_tail.begin(), sd.clamp_tail.end(), c.seeds.clamp_tail);
  put(sd.G, c.seeds.G);
  put(sd.Q_n, c.seeds.Q_n);
  put(sd.Q_2n, c.seeds.Q_2n);
  put(sd.D_n, c.seeds.D_n);
  put(sd.M, c.seeds.M);
  put(sd.R_h, c.seeds.R_h);
  put(sd.R_u, c.seeds.R_u);
  put(sd.W101, c.seeds.W101);
  std::copy(sd.r_first.begin(), sd.r_first.end(), c.seeds.r_first);
  std::copy(sd.r_last.begin(), sd.r_last.end(), c.seeds.r_last);
  std::copy(sd.w_last.begin(), sd.w_last.end(), c.seeds.w_last);
  put_modes(form, full.D, c.D_m);
  put_modes(form, last.D, c.D_last_m);
  put_modes(form, modal::power(full.D, c.run_len), c.D_run_m);
  put_modes(form, last.D * modal::power(full.D, last_run_blocks - 1), c.D_last_run_m);
  put_modes(form, sd.Q_n, c.seeds.Q_n_m);
  put_modes(form, sd.Q_2n, c.seeds.Q_2n_m);
  put_modes(form, sd.D_n, c.seeds.D_n_m);
  put_modes(form, sd.R_h, c.seeds.R_h_m);
  put_modes(form, sd.R_u, c.seeds.R_u_m);
  return c;
}

}  // namespace

int scan_runs(std::int64_t groups, int blocks, std::int64_t group_bytes, const ScanSlots& slots) {
  // Times in quarter blocks of a run: the fixed part 10, a block 4, a run's stitching 1.
  // Runs of kMinRunBlocks blocks but the last: 33 blocks take 9 runs, 8 of 4 and one of 1, rather
  // than 7 of 5, longer than the whole_run_blocks a scan holds in its registers above order 1.
  const int most = std::clamp((blocks + kMinRunBlocks - 1) / kMinRunBlocks, 1, kMaxRuns);
  const std::int64_t sms = std::max(1, slots.sms);
  const int warps = std::max(1, slots.warps_per_sm);
  int best = 1;
  std::int64_t best_time = 0;
  bool best_fits = false;
  for (int want = 1; want <= most; ++want) {
    const int len = (blocks + want - 1) / want, runs = (blocks + len - 1) / len;
    if (runs > warps) break;  // a CTA an SM cannot hold
    const std::int64_t per_wave = sms * (warps / runs);
    if (std::min(groups, per_wave) * group_bytes > slots.l2_bytes / 3 * 2) {
      if (!best_fits) best = runs;  // past the L2 bound: the most runs, the fewest CTAs at once
      continue;
    }
    const std::int64_t time = (groups + per_wave - 1) / per_wave * (10 + 4 * len + runs);
    if (!best_fits || time <= best_time) {  // ties: the shorter runs
      best = runs;
      best_time = time;
      best_fits = true;
    }
  }
  return best;
}

bool carries_modes(const Recursive& f, std::string* why) {
  try {
    const modal::Form form = modal::modal_form(f);
    if (form.condition <= kMaxCondition) return true;
    if (why)
      *why = "the filter's modes cancel (condition " + std::to_string(form.condition) +
             "); use alg4 or rt";
  } catch (const std::domain_error& e) {
    if (why) *why = e.what();
  }
  return false;
}

bool carries_modes(const AxisDesigns& filters, std::string* why) {
  return carries_modes(filters.x, why) && carries_modes(filters.y, why);
}

bool takes_difference(const OutputDifference& d, Extension ext) {
  return !d.any() || ext != Extension::Ignore;
}

bool pads_rows(const OutputDifference& d, Extension ext) {
  return d.y != 0 && !continues_smoothed(ext);
}

namespace {

modal::Form carried_form(const Recursive& f) {
  modal::Form form;
  try {
    form = modal::modal_form(f);
  } catch (const std::domain_error& e) {
    throw InvalidParameter(std::string("fully overlapped filter: ") + e.what());
  }
  if (!(form.condition <= kMaxCondition))
    throw InvalidParameter("fully overlapped filter: the filter's modes cancel (condition " +
                           std::to_string(form.condition) + "); use alg4 or rt");
  return form;
}

}  // namespace

Plan make_plan(const AxisDesigns& filters, Extension ext, int width, int height, int channels,
               double cval, int frames, const ScanSlots& slots) {
  const Recursive& f = filters.y;
  if (width < 1 || height < 1)
    throw InvalidParameter("fully overlapped filter: empty image " + std::to_string(width) + "x" +
                           std::to_string(height));
  if (channels != 1 && channels != 4)
    throw InvalidParameter("fully overlapped filter: " + std::to_string(channels) +
                           " channels (1 or 4 are supported)");
  if (f.order() < 1 || f.order() > kMaxOrder)
    throw InvalidParameter("fully overlapped filter: order " + std::to_string(f.order()) +
                           " outside 1.." + std::to_string(kMaxOrder));
  if (f.causal_only && ext != Extension::Zero && ext != Extension::Ignore)
    throw InvalidParameter(
        std::string("the summed-area table takes only the zero extension (got ") + to_string(ext) +
        ")");
  Plan p;
  p.column_form = carried_form(filters.y);
  p.row_form = carried_form(filters.x);
  const modal::Form &cf = p.column_form, &rf = p.row_form;
  if (rf.real_modes != cf.real_modes || rf.complex_pairs != cf.complex_pairs ||
      rf.causal_only != cf.causal_only)
    throw InvalidParameter(
        "fully overlapped filter: the filters along x and y differ in their modes (" +
        std::to_string(rf.real_modes) + " real and " + std::to_string(rf.complex_pairs) +
        " complex pairs along x, " + std::to_string(cf.real_modes) + " and " +
        std::to_string(cf.complex_pairs) + " along y)");
  // Causal-only filters have no anticausal pass and take zero feedback for Zero and Ignore alike.
  p.ext = f.causal_only ? Extension::Ignore : ext;
  if (p.ext == Extension::Constant) p.constant = constant_values(filters, cval);
  p.width = width;
  p.height = height;
  p.channels = channels;
  p.block_rows = (height + kBlock - 1) / kBlock;
  p.block_cols = (width + kBlock - 1) / kBlock;
  p.padded_width = p.block_cols * kBlock;
  p.padded_height = p.block_rows * kBlock;
  // The scans read the causal carries, the anticausal ones and the raw heads where there are.
  const int arrays = 1 + (cf.causal_only ? 0 : 1) + (p.heads() ? 1 : 0);
  p.columns =
      line_constants(cf, height, std::int64_t(channels) * p.padded_width * frames, arrays, slots);
  p.rows =
      line_constants(rf, width, std::int64_t(channels) * p.padded_height * frames, arrays, slots);

  const int r = cf.order;
  FixRows& fr = p.fix_rows;
  int rows_w = 0;
  fr.tail = rows_w;
  rows_w += r;
  if (!f.causal_only) {
    fr.head = rows_w;
    rows_w += r;
  }
  if (p.heads()) {
    fr.raw = rows_w;
    rows_w += r;
  }
  if (p.edges()) {
    fr.first = rows_w++;
    fr.last = rows_w++;
  }
  p.fix.rows_w = rows_w;
  for (int last = 0; last < 2; ++last) {
    const int row_len = last ? p.columns.last_len : std::min(kBlock, height);
    const modal::BlockMatrices cb = modal::block_matrices(cf, row_len);
    for (int i = 0; i < row_len; ++i)
      for (int k = 0; k < r; ++k) {
        p.fix.A_RE[last][i][k] = f.causal_only ? 0.0 : cb.A_RE(i, k);
        p.fix.ARB_AFP[last][i][k] = f.causal_only ? cb.A_FP(i, k) : cb.ARB_AFP(i, k);
      }
    const int col_len = last ? p.rows.last_len : std::min(kBlock, width);
    const modal::BlockMatrices rb = modal::block_matrices(rf, col_len);
    for (int j = 0; j < col_len; ++j) {
      for (int k = 0; k < r; ++k) {
        p.fix.W[last][fr.tail + k][j] = rb.T_AFB(k, j);
        if (!f.causal_only) p.fix.W[last][fr.head + k][j] = rb.H_ARB_AFB(k, j);
        if (fr.raw >= 0) p.fix.W[last][fr.raw + k][j] = rb.H_ARB(k, j);
      }
    }
    if (fr.first >= 0) {
      p.fix.W[last][fr.first][0] = 1.0;
      p.fix.W[last][fr.last][col_len - 1] = 1.0;
    }
  }
  return p;
}

}  // namespace rf::fully_overlapped
