// The recurrences of the fully overlapped filter in mode states (modal.h), shared by the CPU
// implementation and the CUDA kernels: one step of the r first-order recursions, a block's causal
// and anticausal passes, and the r x r maps of the scans.
#pragma once

#include <cstddef>
#include <type_traits>

#include "filters/core/hd.h"
#include "filters/recursive/fully_overlapped.h"

namespace rf::fully_overlapped {

template <int N>
inline constexpr int kAtLeastOne = N > 0 ? N : 1;

// NR real modes u <- p u + c x and NC complex ones (the pair's other half is the conjugate), in
// the arithmetic type T.
template <int NR, int NC, class T>
struct Modes {
  static constexpr int kOrder = NR + 2 * NC;
  T p[kAtLeastOne<NR>], c[kAtLeastOne<NR>], inv_c[kAtLeastOne<NR>];
  T pr[kAtLeastOne<NC>], pi[kAtLeastOne<NC>];
  T cr[kAtLeastOne<NC>], ci[kAtLeastOne<NC>];          // residue c of the pair's mode
  T inv_cr[kAtLeastOne<NC>], inv_ci[kAtLeastOne<NC>];  // 1 / c
};

// The state in the real basis of modal.h: real modes, then (Re u, Im u) per pair.
template <int NR, int NC, class T>
struct State {
  T s[kAtLeastOne<NR>];
  T re[kAtLeastOne<NC>], im[kAtLeastOne<NC>];

  // Component k of the real basis (k a compile-time constant after unrolling).
  RF_HDI T& operator[](int k) {
    if (k < NR) return s[k];
    const int j = (k - NR) >> 1;
    return ((k - NR) & 1) ? im[j] : re[j];
  }
  RF_HDI T operator[](int k) const { return const_cast<State&>(*this)[k]; }
};

template <int NR, int NC, class T>
RF_HDI State<NR, NC, T> zero_state() {
  State<NR, NC, T> w{};  // value-initialised: with NC = 0 the unused pair slot too
  RF_UNROLL
  for (int k = 0; k < NR + 2 * NC; ++k) w[k] = T(0);
  return w;
}

template <class T>
RF_HDI T fused(T a, T b, T c) {
  return a * b + c;  // contracted into one FMA by the compilers we build with
}

// Inside a block the recursions run on scaled states u_k / c_k, v_k <- p_k v_k + x, with the
// output y = sum_k c_k v_k (a pair counts twice its real part): one FMA per real mode and sample
// instead of two, and the advance of a head (no output) one. The modes' recursions are
// independent chains, so a step's latency is one or two FMAs. Carries stay in modal.h's u_k.
template <int NR, int NC, class T>
RF_HDI void scale_in(const Modes<NR, NC, T>& f, State<NR, NC, T>& w) {
  RF_UNROLL
  for (int k = 0; k < NR; ++k) w.s[k] *= f.inv_c[k];
  RF_UNROLL
  for (int k = 0; k < NC; ++k) {
    const T re = w.re[k], im = w.im[k];
    w.re[k] = fused(re, f.inv_cr[k], -im * f.inv_ci[k]);
    w.im[k] = fused(re, f.inv_ci[k], im * f.inv_cr[k]);
  }
}

template <int NR, int NC, class T>
RF_HDI void scale_out(const Modes<NR, NC, T>& f, State<NR, NC, T>& w) {
  RF_UNROLL
  for (int k = 0; k < NR; ++k) w.s[k] *= f.c[k];
  RF_UNROLL
  for (int k = 0; k < NC; ++k) {
    const T re = w.re[k], im = w.im[k];
    w.re[k] = fused(re, f.cr[k], -im * f.ci[k]);
    w.im[k] = fused(re, f.ci[k], im * f.cr[k]);
  }
}

// One sample on a scaled state: every mode takes x; returns y.
template <int NR, int NC, class T>
RF_HDI T step(const Modes<NR, NC, T>& f, State<NR, NC, T>& w, T x) {
  T y = T(0);
  RF_UNROLL
  for (int k = 0; k < NR; ++k) {
    w.s[k] = fused(f.p[k], w.s[k], x);
    y = fused(f.c[k], w.s[k], y);
  }
  RF_UNROLL
  for (int k = 0; k < NC; ++k) {
    const T re = w.re[k], im = w.im[k];
    w.re[k] = fused(f.pr[k], re, fused(-f.pi[k], im, x));
    w.im[k] = fused(f.pr[k], im, f.pi[k] * re);
    y = fused(T(2) * f.cr[k], w.re[k], fused(T(-2) * f.ci[k], w.im[k], y));
  }
  return y;
}

// The same step when only the state matters (the heads of stage 1).
template <int NR, int NC, class T>
RF_HDI void advance(const Modes<NR, NC, T>& f, State<NR, NC, T>& w, T x) {
  RF_UNROLL
  for (int k = 0; k < NR; ++k) w.s[k] = fused(f.p[k], w.s[k], x);
  RF_UNROLL
  for (int k = 0; k < NC; ++k) {
    const T re = w.re[k], im = w.im[k];
    w.re[k] = fused(f.pr[k], re, fused(-f.pi[k], im, x));
    w.im[k] = fused(f.pr[k], im, f.pi[k] * re);
  }
}

// Causal filtering of a block in place from the entering state w, which ends as the leaving one;
// only the first `len` samples when not Full.
template <bool Full, int NR, int NC, class T, class V>
RF_HDI void causal_block(const Modes<NR, NC, T>& f, V (&v)[kBlock], State<NR, NC, T>& w, int len) {
  scale_in(f, w);
  RF_UNROLL
  for (int i = 0; i < kBlock; ++i)
    if (Full || i < len) v[i] = V(step(f, w, T(v[i])));
  scale_out(f, w);
}

// Anticausal filtering of a block in place, from the state entering at its end.
template <bool Full, int NR, int NC, class T, class V>
RF_HDI void anticausal_block(const Modes<NR, NC, T>& f, V (&v)[kBlock], State<NR, NC, T>& w,
                             int len) {
  scale_in(f, w);
  RF_UNROLL
  for (int i = kBlock - 1; i >= 0; --i)
    if (Full || i < len) v[i] = V(step(f, w, T(v[i])));
  scale_out(f, w);
}

// The anticausal state a block leaves at its start from a zero state, the block unchanged: of
// its samples sample(i), i < len (a column of a tile), or of v.
template <bool Full, int NR, int NC, class T, class Sample>
RF_HDI State<NR, NC, T> anticausal_head_of(const Modes<NR, NC, T>& f, int len, Sample&& sample) {
  State<NR, NC, T> w = zero_state<NR, NC, T>();
  RF_UNROLL
  for (int i = kBlock - 1; i >= 0; --i)
    if (Full || i < len) advance(f, w, T(sample(i)));
  scale_out(f, w);
  return w;
}
template <bool Full, int NR, int NC, class T, class V>
RF_HDI State<NR, NC, T> anticausal_head(const Modes<NR, NC, T>& f, const V (&v)[kBlock], int len) {
  return anticausal_head_of<Full>(f, len, [&](int i) { return v[i]; });
}

// The causal state the first `len` samples of a block leave from a zero state, the block
// unchanged: a partial block's end state for the perimeters, whose causal pass then runs over the
// full block's 32 samples for its outputs alone.
template <int NR, int NC, class T, class V>
RF_HDI State<NR, NC, T> causal_tail(const Modes<NR, NC, T>& f, const V (&v)[kBlock], int len) {
  State<NR, NC, T> w = zero_state<NR, NC, T>();
  RF_UNROLL
  for (int i = 0; i < kBlock; ++i)
    if (i < len) advance(f, w, T(v[i]));
  scale_out(f, w);
  return w;
}

// The anticausal state a full block's causal output leaves at its start from zero states (E,
// eq. 35), as weights of the block's samples: linear in the block, so component k is
// sum_i weight(k, i) x_i: R FMAs a sample (a real mode one, a pair two), where the causal
// pass's outputs and the anticausal pass over them take a real mode two and a pair six (step,
// advance). The CUDA perimeters take their rows' E from these from order 2 on, but for the padded
// frames' kernels of one copy of the passes (fully_overlapped_blocks.cuh). T is double at plan
// time: the two passes run on each unit sample.
template <class T>
struct HeadWeights {
  T w[kMaxOrder][kBlock] = {};
};

template <int NR, int NC, class T>
HeadWeights<T> head_weights(const Modes<NR, NC, T>& f) {
  HeadWeights<T> hw;
  for (int i = 0; i < kBlock; ++i) {
    T v[kBlock] = {};
    v[i] = T(1);
    State<NR, NC, T> w = zero_state<NR, NC, T>();
    causal_block<true>(f, v, w, kBlock);
    const State<NR, NC, T> head = anticausal_head<true>(f, v, kBlock);
    for (int k = 0; k < NR + 2 * NC; ++k) hw.w[k][i] = head[k];
  }
  return hw;
}

// sum_i weight(k, i) sample(i) for the r components of a state (HeadWeights::w).
template <int NR, int NC, class W, class Sample>
RF_HDI State<NR, NC, float> weighted_state(const W (&weight)[kMaxOrder][kBlock], Sample&& sample) {
  State<NR, NC, float> w = zero_state<NR, NC, float>();
  RF_UNROLL
  for (int i = 0; i < kBlock; ++i) {
    const float x = sample(i);
    RF_UNROLL
    for (int k = 0; k < NR + 2 * NC; ++k) w[k] = fused(float(weight[k][i]), x, w[k]);
  }
  return w;
}

// Zeros from sample `len` on (selects, so that v stays in registers on the device).
template <class V>
RF_HDI void zero_from(V (&v)[kBlock], int len) {
  RF_UNROLL
  for (int k = 0; k < kBlock; ++k) v[k] = k < len ? v[k] : V(0);
}

// Both passes over `len` samples dispatched once on whether the block is full.
template <class Fn>
RF_HDI void with_block_len(int len, Fn&& fn) {
  if (len == kBlock)
    fn(std::true_type{});
  else
    fn(std::false_type{});
}

// A partial block (a frame's last block row or column, `len` < kBlock samples) through the full
// blocks' passes in the output stage, whose passes start from carries: padded with zeros to
// kBlock samples, the padding where each pass ends, so that its outputs are exact. shift_later
// moves the samples s places on (zeros before) for the anticausal pass, shift_earlier back
// (zeros after): five steps of fixed moves, taken or not by the bits of s. The CPU backend's
// output stage moves its blocks with these; the device's move theirs through the tile
// (shift_later_through, fully_overlapped_device.cuh).
template <class V>
RF_HDI void shift_later(V (&v)[kBlock], int s) {
  if (s == 0) return;
  RF_UNROLL
  for (int b = 1; b < kBlock; b <<= 1)
    if (s & b) {
      RF_UNROLL
      for (int k = kBlock - 1; k >= 0; --k) v[k] = k >= b ? v[k - b] : V(0);
    }
}
template <class V>
RF_HDI void shift_earlier(V (&v)[kBlock], int s) {
  if (s == 0) return;
  RF_UNROLL
  for (int b = 1; b < kBlock; b <<= 1)
    if (s & b) {
      RF_UNROLL
      for (int k = 0; k < kBlock; ++k) v[k] = k + b < kBlock ? v[k + b] : V(0);
    }
}

// Sample s - 1 of a block moved on by s (shift_later) set to y: the causal output before the
// block, so that an anticausal pass with a difference (anticausal_difference_block, or
// difference_block after it) takes the output there as it does before a full block.
template <class V>
RF_HDI void set_before(V (&v)[kBlock], int s, V y) {
  if (s > 0) {
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) v[k] = k == s - 1 ? y : v[k];
  }
}

// ---------------------------------------------------------------------------------------------
// A difference in the output stage (OutputDifference): the samples one past each end of a block
// from its states.

// The output y = sum_k u_k of a state in modal.h's u (a pair adds twice its real part): the
// causal output at the sample the causal state entering a block left, or the complete output at
// the sample the anticausal state entering from the right left.
template <int NR, int NC, class T>
RF_HDI T mode_sum(const State<NR, NC, T>& w) {
  T y = T(0);
  RF_UNROLL
  for (int k = 0; k < NR; ++k) y += w.s[k];
  RF_UNROLL
  for (int k = 0; k < NC; ++k) y = fused(T(2), w.re[k], y);
  return y;
}

// The complete output one sample before a block: one anticausal step, u_k <- p_k u_k + c_k y,
// from the state w leaving the block at its start, fed y, the causal output there; summed.
template <int NR, int NC, class T>
RF_HDI T output_before(const Modes<NR, NC, T>& f, const State<NR, NC, T>& w, T y) {
  T z = T(0);
  RF_UNROLL
  for (int k = 0; k < NR; ++k) z += fused(f.p[k], w.s[k], f.c[k] * y);
  RF_UNROLL
  for (int k = 0; k < NC; ++k)
    z = fused(T(2), fused(f.pr[k], w.re[k], fused(-f.pi[k], w.im[k], f.cr[k] * y)), z);
  return z;
}

// Calls run(combine) with combine(prev, cur, next) = w[0] prev + w[1] cur + w[2] next in T, the
// difference of weights w; a first difference (order 1: w[0] = -w[2], w[1] = 0) as
// w[2] (next - prev), one operation fewer a sample.
template <class T, class W, class Run>
RF_HDI void with_difference(int order, const W (&w)[3], Run&& run) {
  if (order == 1)
    run([&](T prev, T, T next) { return T(w[2]) * (next - prev); });
  else
    run([&](T prev, T cur, T next) {
      return fused(T(w[0]), prev, fused(T(w[1]), cur, T(w[2]) * next));
    });
}

// v_k = w[0] v_{k-1} + w[1] v_k + w[2] v_{k+1} over the block's `len` samples in place, with
// v_{-1} = before and v_len = after (with_difference).
template <bool Full, class V, class W>
RF_HDI void difference_block(V (&v)[kBlock], int len, V before, V after, int order,
                             const W (&w)[3]) {
  with_difference<V>(order, w, [&](auto combine) {
    V prev = before;
    RF_UNROLL
    for (int k = 0; k < kBlock; ++k) {
      if (!Full && k >= len) break;
      const V cur = v[k];
      const bool last = k + 1 == kBlock || (!Full && k + 1 == len);
      const V next = last ? after : v[k + 1 < kBlock ? k + 1 : k];
      v[k] = combine(prev, cur, next);
      prev = cur;
    }
  });
}

// The anticausal pass of a block (anticausal_block) with the difference of its complete output
// taken as the pass goes: v_k = w[0] y_{k-1} + w[1] y_k + w[2] y_{k+1} for the outputs y over the
// block's `len` samples, y_{-1} the output before the block (output_before, from `before`, the
// causal output there) and y_len the one past it (the mode sum of the state entering, w). Sample
// k + 1 is differenced as soon as y_k is out, so that a sample leaves the registers where the
// plain pass lets it go: differenced after the pass (difference_block), the block's outputs all
// stayed live and the output stage took 96 registers where the smoothing takes 56-72; the columns
// of orders 4 and 5 still take it after (fully_overlapped_blocks.cuh).
template <bool Full, int NR, int NC, class T, class V, class W>
RF_HDI void anticausal_difference_block(const Modes<NR, NC, T>& f, V (&v)[kBlock],
                                        State<NR, NC, T>& w, int len, T before, int order,
                                        const W (&d)[3]) {
  with_difference<T>(order, d, [&](auto combine) {
    T next = mode_sum(w), after = T(0);  // the outputs at samples k + 1 and k + 2
    scale_in(f, w);
    RF_UNROLL
    for (int k = kBlock - 1; k >= 0; --k) {
      if (!Full && k >= len) continue;
      const T y = step(f, w, T(v[k]));
      if (k + 1 < (Full ? kBlock : len)) v[k + 1 < kBlock ? k + 1 : k] = V(combine(y, next, after));
      after = next;
      next = y;
    }
    scale_out(f, w);
    v[0] = V(combine(output_before(f, w, before), next, after));
  });
}

// ---------------------------------------------------------------------------------------------
// The scans: r x r maps (stride kMaxOrder) in T: double on the CPU, float in the kernels (mode
// states keep the maps well conditioned, so float loses nothing the carries' storage does not).

template <int R, class T>
RF_HDI void set_zero(T (&x)[R]) {
  RF_UNROLL
  for (int k = 0; k < R; ++k) x[k] = T(0);
}

// out = m x + add (out may not alias x).
template <int R, class T>
RF_HDI void affine(const T* m, const T (&x)[R], const T (&add)[R], T (&out)[R]) {
  RF_UNROLL
  for (int i = 0; i < R; ++i) {
    T acc = add[i];
    RF_UNROLL
    for (int j = 0; j < R; ++j) acc = fused(m[i * kMaxOrder + j], x[j], acc);
    out[i] = acc;
  }
}

// x = m x + add.
template <int R, class T>
RF_HDI void apply_add(const T* m, T (&x)[R], const T (&add)[R]) {
  T out[R];
  affine<R>(m, x, add, out);
  RF_UNROLL
  for (int k = 0; k < R; ++k) x[k] = out[k];
}

// ---------------------------------------------------------------------------------------------
// Stages 2 and 4 for one line: its blocks are cut into runs (LineMatrices::runs of run_len
// blocks), each run scanned from a zero state, the runs' results stitched, then each run scanned
// again from its true entering state. The CUDA kernels give each run a warp; the CPU walks them in
// order. Carries of a line sit at base[(s * r + k) * stride] for block s, component k.

struct CarryLine {
  float* base = nullptr;
  std::size_t stride = 0;
  RF_HDI float& at(int s, int k, int r) const { return base[(std::size_t(s) * r + k) * stride]; }
};

template <int R, class T>
RF_HDI void load(const CarryLine& c, int s, T (&x)[R]) {
  RF_UNROLL
  for (int k = 0; k < R; ++k) x[k] = T(c.at(s, k, R));
}

template <int R, class T>
RF_HDI void store(const CarryLine& c, int s, const T (&x)[R]) {
  RF_UNROLL
  for (int k = 0; k < R; ++k) c.at(s, k, R) = float(x[k]);
}

template <class T>
RF_HDI const T* block_transfer(const LineMatrices<T>& lc, int s) {
  return s == lc.blocks - 1 ? lc.D_last : lc.D;
}
template <class T>
RF_HDI const T* run_transfer(const LineMatrices<T>& lc, int g) {
  return g == lc.runs - 1 ? lc.D_last_run : lc.D_run;
}
template <class T>
RF_HDI int run_begin(const LineMatrices<T>& lc, int g) {
  return g * lc.run_len;
}
template <class T>
RF_HDI int run_end(const LineMatrices<T>& lc, int g) {
  const int e = (g + 1) * lc.run_len;
  return e < lc.blocks ? e : lc.blocks;
}

// The causal state leaving run g from a zero entering state: q <- D_s q + P_s(Ybar), eq. (24).
template <int R, class T>
RF_HDI void run_forward(const LineMatrices<T>& lc, const CarryLine& pb, int g, T (&q)[R]) {
  set_zero(q);
  for (int s = run_begin(lc, g); s < run_end(lc, g); ++s) {
    T x[R];
    load(pb, s, x);
    apply_add(block_transfer(lc, s), q, x);
  }
}

// The anticausal state leaving run g at its start from a zero state entering at its end, for
// per-block heads h: q <- D_s q + h_s.
template <int R, class T>
RF_HDI void run_backward(const LineMatrices<T>& lc, const CarryLine& h, int g, T (&q)[R]) {
  set_zero(q);
  for (int s = run_end(lc, g) - 1; s >= run_begin(lc, g); --s) {
    T x[R];
    load(h, s, x);
    apply_add(block_transfer(lc, s), q, x);
  }
}

// Stitching forward: given each run's zero-start result q(g) and the state entering run 0, the
// state entering run g is entering(g); returns (in out) the state leaving the last run.
template <int R, class T, class Q, class Entering>
RF_HDI void stitch_forward(const LineMatrices<T>& lc, const T (&start)[R], Q q, Entering entering,
                           T (&out)[R]) {
  RF_UNROLL
  for (int k = 0; k < R; ++k) out[k] = start[k];
  for (int g = 0; g < lc.runs; ++g) {
    entering(g, out);
    T x[R];
    q(g, x);
    apply_add(run_transfer(lc, g), out, x);
  }
}

// Stitching backward: the state entering the last run from the right is `start`; entering(g, v)
// receives the state entering run g from the right; out is the state leaving run 0.
template <int R, class T, class Q, class Entering>
RF_HDI void stitch_backward(const LineMatrices<T>& lc, const T (&start)[R], Q q, Entering entering,
                            T (&out)[R]) {
  RF_UNROLL
  for (int k = 0; k < R; ++k) out[k] = start[k];
  for (int g = lc.runs - 1; g >= 0; --g) {
    entering(g, out);
    T x[R];
    q(g, x);
    apply_add(run_transfer(lc, g), out, x);
  }
}

// The causal state entering the line (Nehab & Maximo 2016 in mode states, modal.h): clamp
// eq. (35), repeat eq. (49), mirror eq. (52), reflect101 as modal.h derives it; ubar is the state
// leaving the line from a zero start, hbar the anticausal recursion of the input from a zero
// state, before its first sample, first and last the line's end samples.
template <int R, class T>
RF_HDI void causal_seed(const LineMatrices<T>& lc, Extension ext, const T (&ubar)[R],
                        const T (&hbar)[R], T first, T last, T (&u)[R]) {
  T zero[R];
  set_zero(zero);
  set_zero(u);
  if (ext == Extension::Clamp || ext == Extension::Constant) {  // constant: first is its value
    RF_UNROLL
    for (int k = 0; k < R; ++k) u[k] = lc.seeds.S[k] * first;
  } else if (ext == Extension::Repeat) {
    affine<R>(lc.seeds.Q_n, ubar, zero, u);
  } else if (ext == Extension::Mirror) {
    T t[R];
    affine<R>(lc.seeds.D_n, ubar, hbar, t);
    affine<R>(lc.seeds.Q_2n, t, zero, u);
  } else if (ext == Extension::Reflect101) {
    T t[R];
    affine<R>(lc.seeds.R_h, hbar, zero, t);
    affine<R>(lc.seeds.R_u, ubar, t, u);
    RF_UNROLL
    for (int k = 0; k < R; ++k) u[k] += lc.seeds.r_first[k] * first + lc.seeds.r_last[k] * last;
  }
}

// The anticausal state entering the line from the right, from the causal state after its last
// sample: zero eq. (44), clamp eq. (44) with the constant's tail, mirror eqs. (67)-(72). Repeat
// (eq. 51) needs the whole anticausal scan first: Q_n times its zero-start result.
template <int R, class T>
RF_HDI void anticausal_seed(const LineMatrices<T>& lc, Extension ext, const T (&u_end)[R], T last,
                            T (&e)[R]) {
  T zero[R];
  set_zero(zero);
  set_zero(e);
  const bool constant_tail = ext == Extension::Clamp || ext == Extension::Constant;
  if (ext == Extension::Zero || constant_tail) affine<R>(lc.seeds.G, u_end, zero, e);
  if (constant_tail) {
    RF_UNROLL
    for (int k = 0; k < R; ++k) e[k] += lc.seeds.clamp_tail[k] * last;
  }
  if (ext == Extension::Mirror) affine<R>(lc.seeds.M, u_end, zero, e);
  if (ext == Extension::Reflect101) {
    affine<R>(lc.seeds.W101, u_end, zero, e);
    RF_UNROLL
    for (int k = 0; k < R; ++k) e[k] += lc.seeds.w_last[k] * last;
  }
}

// ---------------------------------------------------------------------------------------------
// Host: the modes of a plan in the arithmetic type T, and the compile-time dispatch on them.

template <int NR, int NC, class T>
Modes<NR, NC, T> modes_of(const modal::Form& m) {
  Modes<NR, NC, T> f{};
  for (int k = 0; k < NR; ++k) {
    f.p[k] = T(m.pole_re[k]);
    f.c[k] = T(m.residue_re[k]);
    f.inv_c[k] = T(1.0 / m.residue_re[k]);
  }
  for (int k = 0; k < NC; ++k) {
    const double cr = m.residue_re[NR + k], ci = m.residue_im[NR + k], mag2 = cr * cr + ci * ci;
    f.pr[k] = T(m.pole_re[NR + k]);
    f.pi[k] = T(m.pole_im[NR + k]);
    f.cr[k] = T(cr);
    f.ci[k] = T(ci);
    f.inv_cr[k] = T(cr / mag2);
    f.inv_ci[k] = T(-ci / mag2);
  }
  return f;
}

template <int NR, int NC>
struct ModeTag {
  static constexpr int kReal = NR, kPairs = NC, kOrder = NR + 2 * NC;
};

// Calls fn(ModeTag<NR, NC>{}) for every split of orders 1..5 into real modes and complex pairs;
// false for anything else.
template <class Fn>
bool with_modes(int real_modes, int complex_pairs, Fn&& fn) {
  switch (real_modes * 8 + complex_pairs) {
    case 1 * 8 + 0:
      fn(ModeTag<1, 0>{});
      return true;
    case 2 * 8 + 0:
      fn(ModeTag<2, 0>{});
      return true;
    case 0 * 8 + 1:
      fn(ModeTag<0, 1>{});
      return true;
    case 3 * 8 + 0:
      fn(ModeTag<3, 0>{});
      return true;
    case 1 * 8 + 1:
      fn(ModeTag<1, 1>{});
      return true;
    case 4 * 8 + 0:
      fn(ModeTag<4, 0>{});
      return true;
    case 2 * 8 + 1:
      fn(ModeTag<2, 1>{});
      return true;
    case 0 * 8 + 2:
      fn(ModeTag<0, 2>{});
      return true;
    case 5 * 8 + 0:
      fn(ModeTag<5, 0>{});
      return true;
    case 3 * 8 + 1:
      fn(ModeTag<3, 1>{});
      return true;
    case 1 * 8 + 2:
      fn(ModeTag<1, 2>{});
      return true;
    default:
      return false;
  }
}

}  // namespace rf::fully_overlapped
