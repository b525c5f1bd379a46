#include "filters/recursive/fully_overlapped_cpu.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "filters/core/errors.h"
#include "filters/recursive/fully_overlapped_math.h"

namespace rf::fully_overlapped {

namespace {

struct Base {
  virtual ~Base() = default;
  virtual void run(const float* in, float* out) = 0;
};

template <int NR, int NC>
class Filter final : public Base {
  static constexpr int R = NR + 2 * NC;
  using M = Modes<NR, NC, float>;
  using St = State<NR, NC, float>;

 public:
  Filter(Plan plan, FixPlace place)
      : p_(std::move(plan)),
        place_(place),
        fc_(modes_of<NR, NC, float>(p_.column_form)),
        fr_(modes_of<NR, NC, float>(p_.row_form)) {
    cp_.assign(p_.column_carries(), 0.f);
    ce_.assign(p_.column_carries(), 0.f);
    rp_.assign(p_.row_carries(), 0.f);
    re_.assign(p_.row_carries(), 0.f);
    if (p_.heads()) {
      cx_.assign(p_.column_carries(), 0.f);
      rz_.assign(p_.row_carries(), 0.f);
    }
    if (p_.edges()) {
      xf_.assign(p_.column_lines(), 0.f);
      xl_.assign(p_.column_lines(), 0.f);
      zf_.assign(p_.row_lines(), 0.f);
      zl_.assign(p_.row_lines(), 0.f);
    }
  }

  void run(const float* in, float* out) override {
    const int blocks = p_.block_rows * p_.block_cols;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; ++b) perimeters(in, b / p_.block_cols, b % p_.block_cols);
    scan_lines(p_.columns, p_.column_lines(), 0, p_.column_lines(), cp_, ce_, cx_, xf_, xl_,
               p_.constant.columns);
    if (place_ == FixPlace::ColumnScan) {
      // Algorithm 6: every block's fix-up as soon as the column carries are complete.
#pragma omp parallel for schedule(static)
      for (int b = 0; b < blocks; ++b)
        for (int c = 0; c < p_.channels; ++c) fix(b / p_.block_cols, b % p_.block_cols, c);
      scan_lines(p_.rows, p_.row_lines(), 0, p_.row_lines(), rp_, re_, rz_, zf_, zl_,
                 p_.constant.rows);
    } else {
      // Algorithm 5: each band of 32 rows fixes its blocks up, then scans its rows.
      const int bands = p_.channels * p_.block_rows;
#pragma omp parallel for schedule(static)
      for (int band = 0; band < bands; ++band) {
        const int c = band / p_.block_rows, m = band % p_.block_rows;
        for (int n = 0; n < p_.block_cols; ++n) fix(m, n, c);
        const std::size_t first = row_line(c, m * kBlock);
        scan_lines(p_.rows, p_.row_lines(), first, first + kBlock, rp_, re_, rz_, zf_, zl_,
                   p_.constant.rows);
      }
    }
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; ++b) output(in, out, b / p_.block_cols, b % p_.block_cols);
  }

 private:
  std::size_t column_line(int c, int x) const {
    return std::size_t(c) * p_.padded_width + x;
  }
  std::size_t row_line(int c, int y) const {
    return std::size_t(c) * p_.padded_height + y;
  }
  CarryLine line_of(std::vector<float>& v, std::size_t lines, std::size_t line) {
    return CarryLine{v.empty() ? nullptr : v.data() + line, lines};
  }
  bool causal_only() const {
    return p_.causal_only();
  }

  static void put(std::vector<float>& v, int s, std::size_t lines, std::size_t line, const St& w) {
    for (int k = 0; k < R; ++k) v[(std::size_t(s) * R + k) * lines + line] = w[k];
  }
  static St get(const std::vector<float>& v, int s, std::size_t lines, std::size_t line) {
    St w;
    for (int k = 0; k < R; ++k) w[k] = v[(std::size_t(s) * R + k) * lines + line];
    return w;
  }

  // Stage 1 for block (m, n).
  void perimeters(const float* in, int m, int n) {
    const int C = p_.channels, W = p_.width;
    const int y0 = m * kBlock, x0 = n * kBlock;
    const int hm = std::min(kBlock, p_.height - y0), wn = std::min(kBlock, W - x0);
    const std::size_t lc = p_.column_lines(), lr = p_.row_lines();
    float tile[kBlock][kBlock];
    for (int c = 0; c < C; ++c) {
      for (int j = 0; j < wn; ++j) {
        const std::size_t line = column_line(c, x0 + j);
        float v[kBlock] = {};
        for (int i = 0; i < hm; ++i) v[i] = in[(std::size_t(y0 + i) * W + x0 + j) * C + c];
        if (p_.edges()) {
          if (m == 0) xf_[line] = v[0];
          if (m == p_.block_rows - 1) xl_[line] = v[hm - 1];
        }
        // A partial block through the full block's passes from zero states over its zeros past
        // the end, as the device's padded frames (fully_overlapped_blocks.cuh): the causal end
        // state from a pass of its own, the causal outputs past the end zeroed for the anticausal.
        if (p_.heads()) put(cx_, m, lc, line, anticausal_head<true>(fc_, v, kBlock));
        const bool partial = hm < kBlock;
        if (partial) put(cp_, m, lc, line, causal_tail(fc_, v, hm));
        St w = zero_state<NR, NC, float>();
        causal_block<true>(fc_, v, w, kBlock);
        if (!partial) put(cp_, m, lc, line, w);
        if (!causal_only()) {
          if (partial) zero_from(v, hm);
          w = zero_state<NR, NC, float>();
          anticausal_block<true>(fc_, v, w, kBlock);
          put(ce_, m, lc, line, w);
        }
        for (int i = 0; i < hm; ++i) tile[i][j] = v[i];
      }
      for (int i = 0; i < hm; ++i) {
        const std::size_t line = row_line(c, y0 + i);
        float u[kBlock] = {};
        for (int j = 0; j < wn; ++j) u[j] = tile[i][j];
        if (p_.edges()) {
          if (n == 0) zf_[line] = u[0];
          if (n == p_.block_cols - 1) zl_[line] = u[wn - 1];
        }
        if (p_.heads()) put(rz_, n, lr, line, anticausal_head<true>(fr_, u, kBlock));
        const bool partial = wn < kBlock;
        if (partial) put(rp_, n, lr, line, causal_tail(fr_, u, wn));
        St w = zero_state<NR, NC, float>();
        causal_block<true>(fr_, u, w, kBlock);
        if (!partial) put(rp_, n, lr, line, w);
        if (!causal_only()) {
          if (partial) zero_from(u, wn);
          put(re_, n, lr, line, anticausal_head<true>(fr_, u, kBlock));
        }
      }
    }
  }

  // Stages 2 and 4 for lines [l0, l1) of one direction of `lines` lines (in parallel when not
  // already inside a parallel region).
  void scan_lines(const LineConstants& lc, std::size_t lines, std::size_t l0, std::size_t l1,
                  std::vector<float>& pb, std::vector<float>& eb, std::vector<float>& hb,
                  const std::vector<float>& first, const std::vector<float>& last,
                  double constant) {
    // The end samples where the seeds read them, else the constant's value (zero but for it).
#pragma omp parallel for schedule(static) if (!omp_in_parallel())
    for (long long l = (long long)l0; l < (long long)l1; ++l)
      scan_line(lc, line_of(pb, lines, l), line_of(eb, lines, l), line_of(hb, lines, l),
                first.empty() ? constant : double(first[l]),
                last.empty() ? constant : double(last[l]));
  }

  void scan_line(const LineConstants& lc, const CarryLine& pb, const CarryLine& eb,
                 const CarryLine& hb, double first, double last) {
    const int G = lc.runs;
    double q[kMaxRuns][R], qh[kMaxRuns][R], entering[kMaxRuns][R];
    // Every run from a zero state.
    for (int g = 0; g < G; ++g) {
      run_forward<R>(lc, pb, g, q[g]);
      if (p_.heads()) run_backward<R>(lc, hb, g, qh[g]);
    }
    auto q_of = [&](const double(*runs)[R]) {
      return [runs](int g, double(&x)[R]) {
        for (int k = 0; k < R; ++k) x[k] = runs[g][k];
      };
    };
    auto ignore = [](int, const double(&)[R]) {};
    double zero[R], ubar[R], hbar[R], u[R], u_end[R], e[R];
    set_zero(zero);
    set_zero(hbar);
    stitch_forward<R>(lc, zero, q_of(q), ignore, ubar);
    if (p_.heads()) stitch_backward<R>(lc, zero, q_of(qh), ignore, hbar);
    causal_seed<R>(lc, p_.ext, ubar, hbar, first, last, u);
    stitch_forward<R>(
        lc, u, q_of(q), [&](int g, const double(&v)[R]) { std::copy(v, v + R, entering[g]); },
        u_end);
    // Each run again from its entering state: the complete causal states P_{m-1}(Y), and the
    // anticausal perimeters completed with them, E(Zhat) + H(A_RB) A_FP P_{m-1}(Y), eq. (34).
    for (int g = 0; g < G; ++g) {
      double state[R];
      std::copy(entering[g], entering[g] + R, state);
      for (int s = run_begin(lc, g); s < run_end(lc, g); ++s) {
        double x[R];
        load(pb, s, x);
        store(pb, s, state);
        if (!causal_only()) {
          double eh[R], v[R];
          load(eb, s, eh);
          affine<R>(s == lc.blocks - 1 ? lc.H_ARB_AFP_last : lc.H_ARB_AFP, state, eh, v);
          store(eb, s, v);
        }
        apply_add(block_transfer(lc, s), state, x);
      }
    }
    if (causal_only()) return;
    for (int g = 0; g < G; ++g) run_backward<R>(lc, eb, g, q[g]);
    if (p_.ext == Extension::Repeat) {
      double wbar[R];
      stitch_backward<R>(lc, zero, q_of(q), ignore, wbar);
      affine<R>(lc.seeds.Q_n, wbar, zero, e);
    } else {
      anticausal_seed<R>(lc, p_.ext, u_end, last, e);
    }
    double out[R];
    stitch_backward<R>(
        lc, e, q_of(q), [&](int g, const double(&v)[R]) { std::copy(v, v + R, entering[g]); }, out);
    for (int g = 0; g < G; ++g) {
      double state[R];
      std::copy(entering[g], entering[g] + R, state);
      for (int s = run_end(lc, g) - 1; s >= run_begin(lc, g); --s) {
        double v[R];
        load(eb, s, v);
        store(eb, s, state);
        apply_add(block_transfer(lc, s), state, v);
      }
    }
  }

  // Stage 3 for block (m, n), channel c: the column carries' share of the row perimeters.
  void fix(int m, int n, int c) {
    const FixConstants& fx = p_.fix;
    const int rows_w = fx.rows_w;
    const int last_row = m == p_.block_rows - 1, last_col = n == p_.block_cols - 1;
    const std::size_t lc = p_.column_lines(), lr = p_.row_lines();
    // Q[src][a][k] = sum_j W(a, j) X_j(k), X = P (src 0) or E (src 1) of the block's columns.
    double Q[2][kMaxFixRows][R] = {};
    for (int j = 0; j < kBlock; ++j) {
      const std::size_t line = column_line(c, n * kBlock + j);
      for (int k = 0; k < R; ++k) {
        const double P = cp_[(std::size_t(m) * R + k) * lc + line];
        const double E = causal_only() ? 0.0 : ce_[(std::size_t(m) * R + k) * lc + line];
        for (int a = 0; a < rows_w; ++a) {
          Q[0][a][k] += fx.W[last_col][a][j] * P;
          Q[1][a][k] += fx.W[last_col][a][j] * E;
        }
      }
    }
    const FixRows& fr = p_.fix_rows;
    for (int i = 0; i < kBlock; ++i) {
      const std::size_t line = row_line(c, m * kBlock + i);
      double out[kMaxFixRows] = {};
      for (int a = 0; a < rows_w; ++a)
        for (int k = 0; k < R; ++k)
          out[a] += fx.A_RE[last_row][i][k] * Q[1][a][k] + fx.ARB_AFP[last_row][i][k] * Q[0][a][k];
      auto add = [&](std::vector<float>& v, int row0) {
        for (int k = 0; k < R; ++k) {
          float& x = v[(std::size_t(n) * R + k) * lr + line];
          x = float(double(x) + out[row0 + k]);
        }
      };
      add(rp_, fr.tail);
      if (!causal_only()) add(re_, fr.head);
      if (fr.raw >= 0) add(rz_, fr.raw);
      if (fr.first >= 0) {
        if (n == 0) zf_[line] = float(double(zf_[line]) + out[fr.first]);
        if (last_col) zl_[line] = float(double(zl_[line]) + out[fr.last]);
      }
    }
  }

  // Stage 5 for block (m, n).
  void output(const float* in, float* out, int m, int n) {
    const int C = p_.channels, W = p_.width;
    const int y0 = m * kBlock, x0 = n * kBlock;
    const int hm = std::min(kBlock, p_.height - y0), wn = std::min(kBlock, W - x0);
    const std::size_t lc = p_.column_lines(), lr = p_.row_lines();
    float tile[kBlock][kBlock];
    for (int c = 0; c < C; ++c) {
      for (int j = 0; j < wn; ++j) {
        const std::size_t line = column_line(c, x0 + j);
        float v[kBlock] = {};
        for (int i = 0; i < hm; ++i) v[i] = in[(std::size_t(y0 + i) * W + x0 + j) * C + c];
        // From the carries: a partial block's zeros after it for the causal pass, before it for
        // the anticausal one (shift_later).
        St w = get(cp_, m, lc, line);
        causal_block<true>(fc_, v, w, kBlock);
        if (!causal_only()) {
          w = get(ce_, m, lc, line);
          shift_later(v, kBlock - hm);
          anticausal_block<true>(fc_, v, w, kBlock);
          shift_earlier(v, kBlock - hm);
        }
        for (int i = 0; i < hm; ++i) tile[i][j] = v[i];
      }
      for (int i = 0; i < hm; ++i) {
        const std::size_t line = row_line(c, y0 + i);
        float u[kBlock] = {};
        for (int j = 0; j < wn; ++j) u[j] = tile[i][j];
        St w = get(rp_, n, lr, line);
        causal_block<true>(fr_, u, w, kBlock);
        if (!causal_only()) {
          w = get(re_, n, lr, line);
          shift_later(u, kBlock - wn);
          anticausal_block<true>(fr_, u, w, kBlock);
          shift_earlier(u, kBlock - wn);
        }
        for (int j = 0; j < wn; ++j) tile[i][j] = u[j];
      }
      for (int i = 0; i < hm; ++i)
        for (int j = 0; j < wn; ++j) out[(std::size_t(y0 + i) * W + x0 + j) * C + c] = tile[i][j];
    }
  }

  Plan p_;
  FixPlace place_;
  M fc_, fr_;  // the modes of the columns' filter and the rows'
  std::vector<float> cp_, ce_, cx_, rp_, re_, rz_;  // carries, modal.h's state per block and line
  std::vector<float> xf_, xl_, zf_, zl_;            // clamp: first and last samples per line
};

}  // namespace

struct CpuFilter::Impl {
  std::unique_ptr<Base> filter;
};

CpuFilter::CpuFilter(const AxisDesigns& filters, Extension ext, int width, int height, int channels,
                     FixPlace place, double cval)
    : impl_(std::make_unique<Impl>()) {
  Plan plan = make_plan(filters, ext, width, height, channels, cval);
  const bool ok =
      with_modes(plan.column_form.real_modes, plan.column_form.complex_pairs, [&](auto tag) {
        using Tag = decltype(tag);
        impl_->filter = std::make_unique<Filter<Tag::kReal, Tag::kPairs>>(std::move(plan), place);
      });
  if (!ok) throw InvalidParameter("fully overlapped filter: unsupported order");
}

CpuFilter::~CpuFilter() = default;
CpuFilter::CpuFilter(CpuFilter&&) noexcept = default;
CpuFilter& CpuFilter::operator=(CpuFilter&&) noexcept = default;

void CpuFilter::run(const float* in, float* out) {
  impl_->filter->run(in, out);
}

}  // namespace rf::fully_overlapped
