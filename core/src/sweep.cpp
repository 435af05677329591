// SPDX-License-Identifier: MIT
// Lowering an estimate to its (batch, seq) coefficients, and the SIMD kernel that evaluates them on a grid.
// Why the lowering is exact: see docs/sweep.md.
#include "llm_memory/sweep.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "profile_axes.hpp"
#include "runtimes/runtime_def.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define LLM_MEMORY_X86 1
#endif

namespace llm_memory {
namespace {

// estimate() at one point, the run varied there as applying batch and seq varies it (vary(): re-resolved where its
// profile reads them, TGI 1.4.1's prefill tokens). A point resolve() refuses (cp not dividing seq) is the formula's
// value there, as a lowered cell is.
double point_total(const run_spec& spec, std::int64_t batch, std::int64_t seq) {
  const auto r = vary(spec, {{"batch", std::to_string(batch)}, {"seq", std::to_string(seq)}});
  return estimate(r.ok() ? r.value() : with_workload(spec, batch, seq, spec.values.devices)).total_bytes;
}

// ---- lowering ---------------------------------------------------------------------------------------------------

// One look at every stage at one seq: the exact pre-rounding bytes per sequence of the batch, and the item names
// (a change of name marks a change of formula, e.g. the attention vs MLP workspace of inference).
struct probe {
  std::vector<double> slope;       // bytes per sequence, per stage (overhead included)
  std::vector<std::string> names;  // every item name of every stage, in order
};

class prober {
 public:
  explicit prober(const run_spec& spec) : spec_(spec) {
    // estimate() is linear in the batch, and multiplying every batch-proportional term by a power of two is
    // exact in binary floating point. At batch 2^k each item is 2^k x its unrounded value at batch 1, an integer
    // once 2^k >= 2^52 / value, so rounding up to whole bytes changes nothing and dividing by 2^k recovers it.
    // The limit keeps batch x grad_accum x data_parallel (an int64 in estimate_result) from overflowing.
    const auto bits = [](std::int64_t v) {
      return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(std::max<std::int64_t>(v, 1) - 1)));
    };
    shift_ = std::min(52, 62 - bits(spec.values.grad_accum) - bits(spec.data_parallel));
    scale_ = std::ldexp(1.0, shift_);
    at_zero_ = estimate_at(0, 1);
  }

  [[nodiscard]] const std::vector<estimate_result>& at_zero() const { return at_zero_; }
  [[nodiscard]] double scale() const { return scale_; }
  [[nodiscard]] std::size_t calls() const { return cache_.size(); }

  // Items (outside the overhead bucket) whose bytes grow with the batch, counted over all probes.
  [[nodiscard]] std::size_t batch_items() const { return batch_items_; }
  [[nodiscard]] double overhead_rate() const { return overhead_rate_; }
  // Whether some stage's bytes at batch 0 changed with seq: then "fixed + b x per_sequence(s)" does not hold.
  [[nodiscard]] bool fixed_varies() const { return fixed_varies_; }

  const probe& at(std::int64_t seq) {
    if (const auto it = cache_.find(seq); it != cache_.end()) return it->second;
    const auto big = estimate_at(scale_, seq);
    const auto zero = estimate_at(0, seq);
    probe p;
    for (std::size_t st = 0; st < big.size(); ++st) {
      if (zero[st].total_bytes != at_zero_[st].total_bytes) fixed_varies_ = true;
      double items = 0, allocated_big = 0, allocated_zero = 0, over_big = 0, over_zero = 0;
      std::size_t growing = 0;
      for (std::size_t k = 0; k < big[st].buckets.size(); ++k) {
        const bucket& bb = big[st].buckets[k];
        const bucket& bz = zero[st].buckets[k];
        const bool overhead = bb.key == "overhead";
        (overhead ? over_big : allocated_big) += bb.bytes;
        (overhead ? over_zero : allocated_zero) += bz.bytes;
        for (std::size_t i = 0; i < bb.items.size(); ++i) {
          p.names.push_back(bb.items[i].name);
          if (overhead || i >= bz.items.size()) continue;
          const double grows = bb.items[i].bytes - bz.items[i].bytes;
          items += grows / scale_;
          if (grows != 0) ++growing;
        }
      }
      // The overhead grows in proportion to the allocated bytes (the fragmentation reserve), if at all.
      const double rate =
          allocated_big > allocated_zero ? (over_big - over_zero) / (allocated_big - allocated_zero) : 0;
      overhead_rate_ = std::max(overhead_rate_, rate);
      batch_items_ = std::max(batch_items_, growing);
      p.slope.push_back(items * (1 + rate));
    }
    return cache_.emplace(seq, std::move(p)).first->second;
  }

 private:
  std::vector<estimate_result> estimate_at(double batch, std::int64_t seq) const {
    return estimate_stages(with_workload(spec_, static_cast<std::int64_t>(batch), seq, spec_.values.devices));
  }

  const run_spec& spec_;
  int shift_ = 52;
  double scale_ = 1;
  std::vector<estimate_result> at_zero_;
  std::map<std::int64_t, probe> cache_;
  std::size_t batch_items_ = 0;
  double overhead_rate_ = 0;
  bool fixed_varies_ = false;
};

// Fits one stage's bytes per sequence on [lo, hi] with quadratics, splitting where a quadratic through three
// probes misses two others (a kink such as min(s, window), or a change of formula).
class fitter {
 public:
  fitter(prober& p, std::size_t stage) : probes_(p), stage_(stage) {}

  bool fit(std::int64_t lo, std::int64_t hi, std::vector<seq_piece>& out) {
    if (probes_.calls() > max_probes) return false;
    // Nodes spread geometrically, so that both ends of the piece pin down all three coefficients
    // (arithmetic nodes over 1 .. 1e8 would leave the s term of short sequences to rounding noise).
    const auto at = [&](double t) {
      return static_cast<std::int64_t>(
          std::round(static_cast<double>(lo) * std::pow(static_cast<double>(hi) / static_cast<double>(lo), t)));
    };
    std::int64_t q1 = at(0.25), mid = at(0.5), q3 = at(0.75);
    if (!(lo < q1 && q1 < mid && mid < q3 && q3 < hi))
      q1 = lo + (hi - lo) / 4, mid = lo + (hi - lo) / 2, q3 = hi - (hi - lo) / 4;
    if (!(lo < q1 && q1 < mid && mid < q3 && q3 < hi)) {  // too short to verify a fit: one piece per seq value
      for (std::int64_t s = lo; s <= hi; ++s) out.push_back({s, s, y(s), 0, 0});
      return true;
    }
    const auto x0 = static_cast<double>(lo), x1 = static_cast<double>(mid), x2 = static_cast<double>(hi);
    const double y0 = y(lo), y1 = y(mid), y2 = y(hi);
    // Newton's divided differences, then the monomial coefficients.
    const double d1 = (y1 - y0) / (x1 - x0);
    const double d2 = ((y2 - y1) / (x2 - x1) - d1) / (x2 - x0);
    const seq_piece piece{lo, hi, y0 - d1 * x0 + d2 * x0 * x1, d1 - d2 * (x0 + x1), d2};
    const auto near = [&](std::int64_t s) {
      const double want = y(s), got = piece.c0 + piece.c1 * static_cast<double>(s) +
                                      piece.c2 * static_cast<double>(s) * static_cast<double>(s);
      return std::abs(want - got) <= 1e-13 * std::max({std::abs(want), std::abs(y0), std::abs(y2), 1.0});
    };
    const auto& names = probes_.at(lo).names;
    const bool same_formula = probes_.at(hi).names == names && probes_.at(mid).names == names &&
                              probes_.at(q1).names == names && probes_.at(q3).names == names;
    if (same_formula && near(q1) && near(q3)) {
      out.push_back(piece);
      return true;
    }
    return fit(lo, mid, out) && fit(mid + 1, hi, out);
  }

  // Enough for a few kinks, each located by bisection over 1e8 tokens (about 27 halvings of 3 probes).
  static constexpr std::size_t max_probes = 4000;

 private:
  double y(std::int64_t s) { return probes_.at(s).slope[stage_]; }
  prober& probes_;
  std::size_t stage_;
};

const seq_piece& piece_at(const std::vector<seq_piece>& pieces, double seq) {
  const auto it = std::partition_point(pieces.begin(), pieces.end(),
                                       [&](const seq_piece& p) { return static_cast<double>(p.seq_last) < seq; });
  return it == pieces.end() ? pieces.back() : *it;
}

// ---- kernels ----------------------------------------------------------------------------------------------------
// Every kernel computes fixed + b x slope per stage and the larger stage, in that order (no FMA: the build uses
// -ffp-contract=off), so all of them give the same bits.
//
// One kernel, written once with GCC/Clang vector extensions for V = a vector of `lanes` doubles (V = double for the
// scalar kernel); the columns that do not fill a vector take the same formula one double at a time (a loop clang need
// not vectorise: it runs fewer than `lanes` times). The max over the stages stays in a register and each point is
// stored once: a training step lowers to 4 stages (its phases), and one pass per stage over the row (store, load
// back, max, store again) made 4 stores per point (docs/performance.md, "Sweep kernel").
#if defined(__clang__)
#define LLM_MEMORY_NO_VECTORIZE _Pragma("clang loop vectorize(disable) interleave(disable)")
#define LLM_MEMORY_SCALAR_FN
#else
#define LLM_MEMORY_NO_VECTORIZE
#define LLM_MEMORY_SCALAR_FN __attribute__((optimize("no-tree-vectorize")))
#endif

#define LLM_MEMORY_ROWS(V, lanes, NO_VECTORIZE)                                        \
  const std::size_t n = c.seq_count, stages = c.fixed.size(), whole = n - n % (lanes); \
  const double* const fixed = c.fixed.data();                                          \
  const double* const slope = c.slope.data();                                          \
  for (std::size_t i = 0; i < batch.size(); ++i) {                                     \
    const double b = batch[i];                                                         \
    const V bv = b - V{}, f0 = fixed[0] - V{};                                         \
    double* const row = out + i * n;                                                   \
    NO_VECTORIZE                                                                       \
    for (std::size_t j = 0; j < whole; j += (lanes)) {                                 \
      V sv, best;                                                                      \
      std::memcpy(&sv, slope + j, sizeof sv);                                          \
      best = f0 + bv * sv;                                                             \
      for (std::size_t st = 1; st < stages; ++st) {                                    \
        std::memcpy(&sv, slope + st * n + j, sizeof sv);                               \
        const V t = (fixed[st] - V{}) + bv * sv;                                       \
        best = t > best ? t : best;                                                    \
      }                                                                                \
      std::memcpy(row + j, &best, sizeof best);                                        \
    }                                                                                  \
    LLM_MEMORY_NO_VECTORIZE                                                            \
    for (std::size_t j = whole; j < n; ++j) {                                          \
      double best = fixed[0] + b * slope[j];                                           \
      for (std::size_t st = 1; st < stages; ++st) {                                    \
        const double t = fixed[st] + b * slope[st * n + j];                            \
        best = t > best ? t : best;                                                    \
      }                                                                                \
      row[j] = best;                                                                   \
    }                                                                                  \
  }

LLM_MEMORY_SCALAR_FN void rows_scalar(const sweep_columns& c, std::span<const double> batch, double* out) {
  LLM_MEMORY_ROWS(double, 1, LLM_MEMORY_NO_VECTORIZE)
}

using v2d = double __attribute__((vector_size(16)));  // SSE2 xmm, wasm v128 (f64x2)

void rows_simd2(const sweep_columns& c, std::span<const double> batch, double* out) { LLM_MEMORY_ROWS(v2d, 2, ) }

#if LLM_MEMORY_X86
using v4d = double __attribute__((vector_size(32)));  // AVX ymm

__attribute__((target("avx2"))) void rows_avx2(const sweep_columns& c, std::span<const double> batch, double* out) {
  LLM_MEMORY_ROWS(v4d, 4, )
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") != 0;
  return yes;
}
#endif

}  // namespace

double stage_lowering::per_sequence(double seq) const {
  const seq_piece& p = piece_at(pieces, seq);
  return p.c0 + p.c1 * seq + p.c2 * seq * seq;
}

double lowered_estimate::total(double batch, double seq) const {
  if (pointwise) return point_total(spec, static_cast<std::int64_t>(batch), static_cast<std::int64_t>(seq));
  double best = 0;
  for (std::size_t st = 0; st < stages.size(); ++st) {
    const double t = stages[st].fixed + batch * stages[st].per_sequence(seq);
    best = st == 0 || t > best ? t : best;
  }
  return best;
}

result<lowered_estimate> lower(const run_spec& spec) {
  lowered_estimate out;
  out.spec = spec;
  out.gpu_memory = spec.values.gpu_memory;
  out.batch_limit = static_cast<std::int64_t>(find_setting("batch")->max_value);
  // A runtime whose memory is a step function of seq or batch (llama.cpp's padded cells, TGI's warmup blocks:
  // runtime_def::lowerable) is swept point by point: every point is estimate() itself. So is a run whose profile
  // reads batch or seq (TGI 1.4.1's prefill tokens): each point is a run of its own, and the probes below (the run's
  // formulas at other batches and seqs) would not hold.
  const detail::profile_reads reads = detail::profile_axes(spec);
  if ((!spec.train() && !detail::runtime_of(spec.runtime).lowerable) || reads.batch || reads.seq) {
    out.pointwise = true;
    return out;
  }
  const auto seq_limit = static_cast<std::int64_t>(find_setting("seq")->max_value);
  prober probes(spec);
  for (std::size_t st = 0; st < probes.at_zero().size(); ++st) {
    stage_lowering stage;
    stage.stage = probes.at_zero()[st].stage;
    stage.fixed = probes.at_zero()[st].total_bytes;
    fitter f(probes, st);
    // A sliding window puts a kink at s = window: start with it as a piece boundary (saves the bisection).
    const std::int64_t w = spec.values.sliding_window;
    const bool ok = w > 0 && w < seq_limit ? f.fit(1, w, stage.pieces) && f.fit(w + 1, seq_limit, stage.pieces)
                                           : f.fit(1, seq_limit, stage.pieces);
    if (!ok || probes.fixed_varies())
      return error{"seq",
                   "memory is not batch x (piecewise quadratic in seq) plus a constant; the sweep cannot "
                   "lower this estimate"};
    out.stages.push_back(std::move(stage));
  }
  // Each growing item is rounded up by estimate() (< 1 byte, scaled by the fragmentation reserve), the reserve
  // itself once (within 1 byte either way), and a probe below 2^52 leaves < 1 byte per 2^k sequences per item.
  const auto items = static_cast<double>(probes.batch_items());
  const double rate = 1 + probes.overhead_rate();
  out.rounding_bound = rate * items * (1 + static_cast<double>(out.batch_limit) / probes.scale()) + 1;
  return out;
}

sweep_columns columns(const lowered_estimate& lowered, std::span<const double> seq) {
  sweep_columns c;
  c.seq_count = seq.size();
  for (const auto& stage : lowered.stages) {
    c.fixed.push_back(stage.fixed);
    for (const double s : seq) c.slope.push_back(stage.per_sequence(s));
  }
  return c;
}

std::string_view simd_isa() {
#if LLM_MEMORY_X86
  return has_avx2() ? "avx2" : "sse2";
#elif defined(__wasm_simd128__)
  return "wasm-simd128";
#else
  return "none";
#endif
}

void evaluate(const sweep_columns& cols, std::span<const double> batch, std::span<double> out, kernel k) {
  if (cols.fixed.empty() || out.size() < batch.size() * cols.seq_count) return;
  if (k == kernel::scalar) return rows_scalar(cols, batch, out.data());
#if LLM_MEMORY_X86
  if (has_avx2()) return rows_avx2(cols, batch, out.data());
#endif
  rows_simd2(cols, batch, out.data());
}

namespace {

// The largest batch in [1, batch_limit] whose estimate() fits, by doubling then bisection (memory grows with the
// batch); 0 when one sequence does not fit.
std::int64_t max_batch_pointwise(const lowered_estimate& lowered, double seq) {
  const double limit = lowered.gpu_memory;
  const auto fits = [&](std::int64_t b) { return lowered.total(static_cast<double>(b), seq) <= limit; };
  if (!fits(1)) return 0;
  std::int64_t sure = 1, above = 2;  // sure fits; above is the next candidate
  while (above <= lowered.batch_limit && fits(above)) {
    sure = above;
    above *= 2;
  }
  above = std::min(above, lowered.batch_limit + 1);  // the first value known not to fit (or past the limit)
  while (above - sure > 1) {
    const std::int64_t probe = sure + (above - sure) / 2;
    (fits(probe) ? sure : above) = probe;
  }
  return sure;
}

}  // namespace

std::vector<std::int64_t> max_batch(const lowered_estimate& lowered, std::span<const double> seq) {
  if (lowered.pointwise) {
    std::vector<std::int64_t> out;
    out.reserve(seq.size());
    for (const double s : seq) out.push_back(max_batch_pointwise(lowered, s));
    return out;
  }
  std::vector<std::int64_t> out;
  out.reserve(seq.size());
  const double limit = lowered.gpu_memory;
  const double tolerance = lowered_estimate::relative_tolerance;
  for (const double s : seq) {
    // Largest b in [0, batch_limit] with total(b) <= budget; total grows with b.
    const auto largest = [&](double budget) {
      double b = static_cast<double>(lowered.batch_limit);
      for (const auto& stage : lowered.stages) {
        const double slope = stage.per_sequence(s);
        if (slope > 0) b = std::min(b, std::floor((budget - stage.fixed) / slope));
      }
      b = std::clamp(b, 0.0, static_cast<double>(lowered.batch_limit));
      while (b > 0 && lowered.total(b, s) > budget) b -= 1;
      while (b < static_cast<double>(lowered.batch_limit) && lowered.total(b + 1, s) <= budget) b += 1;
      if (b == 0 && lowered.total(0, s) > budget) return -1.0;
      return b;
    };
    // estimate() = total + e with e in [-1, rounding_bound] (+ relative tolerance): b_sure surely fits, anything
    // above b_maybe surely does not; estimate() itself settles the values in between.
    const double margin = tolerance * limit;
    auto sure = static_cast<std::int64_t>(std::max(0.0, largest(limit - lowered.rounding_bound - margin)));
    auto maybe = static_cast<std::int64_t>(std::max(0.0, largest(limit + 1 + margin)));
    while (sure < maybe) {  // invariant: sure fits (or is 0), maybe + 1 does not
      const std::int64_t probe = sure + (maybe - sure + 1) / 2;
      if (point_total(lowered.spec, probe, static_cast<std::int64_t>(s)) <= limit)
        sure = probe;
      else
        maybe = probe - 1;
    }
    out.push_back(sure);
  }
  return out;
}

sweep_grid sweep(const lowered_estimate& lowered, std::span<const double> batch, std::span<const double> seq,
                 kernel k) {
  sweep_grid g;
  g.batch.assign(batch.begin(), batch.end());
  g.seq.assign(seq.begin(), seq.end());
  g.total.resize(batch.size() * seq.size());
  if (lowered.pointwise) {
    for (std::size_t i = 0; i < batch.size(); ++i)
      for (std::size_t j = 0; j < seq.size(); ++j) g.total[i * seq.size() + j] = lowered.total(batch[i], seq[j]);
  } else {
    evaluate(columns(lowered, seq), batch, g.total, k);
  }
  g.max_batch = max_batch(lowered, seq);
  return g;
}

result<std::vector<double>> parse_axis(std::string_view key, std::string_view text) {
  const setting_def* def = find_setting(key);
  if (def == nullptr) return error{std::string(key), "is not a setting"};
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  const std::string usage =
      "must be a value, a range a:b (doubling from a) or a:b:n (n steps), got \"" + std::string(text) + "\"";
  if (parts.size() > 3) return error{std::string(def->key), usage};
  std::vector<double> ends;
  for (std::size_t i = 0; i < std::min<std::size_t>(parts.size(), 2); ++i) {
    auto v = parse_number(*def, parts[i]);
    if (!v.ok()) return v.errors();
    ends.push_back(v.value());
  }
  std::vector<double> axis;
  if (parts.size() == 1) return std::vector<double>{ends[0]};
  const double a = ends[0], b = ends[1];
  if (b < a) return error{std::string(def->key), "range " + std::string(text) + " must not end below its start"};
  if (parts.size() == 2) {
    for (double v = a; v <= b && axis.size() <= max_axis_values; v *= 2) axis.push_back(v);
  } else {
    setting_def steps;
    steps.kind = setting_kind::integer;
    steps.min_value = 1;
    steps.max_value = static_cast<double>(max_axis_values);
    auto n = parse_number(steps, parts[2]);
    if (!n.ok())
      return error{std::string(def->key), "the step count of " + std::string(text) + " must be an integer from 1 to " +
                                              std::to_string(max_axis_values)};
    const double count = n.value();
    for (double i = 0; i < count; ++i) {
      const double v = count == 1 ? a : std::round(a + (b - a) * i / (count - 1));
      if (axis.empty() || v != axis.back()) axis.push_back(v);
    }
  }
  if (axis.size() > max_axis_values)
    return error{std::string(def->key),
                 "range " + std::string(text) + " has more than " + std::to_string(max_axis_values) + " values"};
  return axis;
}

result<sweep_run> run_sweep(const sweep_request& request) {
  std::vector<error> errors;
  std::vector<double> axes[2];
  const std::pair<const char*, const std::string*> given[2] = {{"batch", &request.batch}, {"seq", &request.seq}};
  for (int k = 0; k < 2; ++k) {
    auto axis = parse_axis(given[k].first, *given[k].second);
    if (axis.ok())
      axes[k] = std::move(axis.value());
    else
      errors.insert(errors.end(), axis.errors().begin(), axis.errors().end());
  }
  if (errors.empty())
    if (auto too_big = grid_size_error(axes[0].size(), axes[1].size())) errors.push_back(*too_big);
  settings values = request.values;
  values.erase("batch");
  values.erase("seq");
  const auto spec = resolve(values, request.config, request.gguf_file);
  if (!spec.ok()) errors.insert(errors.end(), spec.errors().begin(), spec.errors().end());
  if (!errors.empty()) return errors;
  auto lowered = lower(spec.value());
  if (!lowered.ok()) return lowered.errors();
  sweep_grid grid = sweep(lowered.value(), axes[0], axes[1], request.kernel_choice);
  return sweep_run{std::move(lowered.value()), std::move(grid)};
}

result<std::vector<double>> sweep_parallel(const settings& explicit_values, std::span<const std::int64_t> devices) {
  std::vector<double> out;
  std::vector<error> errors;
  for (const std::int64_t d : devices) {
    for (int zero = 0; zero <= 3; ++zero) {
      settings s = explicit_values;
      s["devices"] = std::to_string(d);
      s["zero"] = std::to_string(zero);
      auto r = estimate(s);
      if (!r.ok()) {
        for (const auto& e : r.errors())
          if (std::none_of(errors.begin(), errors.end(),
                           [&](const error& x) { return x.setting == e.setting && x.message == e.message; }))
            errors.push_back(e);
        continue;
      }
      out.push_back(r.value().total_bytes);
    }
  }
  if (!errors.empty()) return errors;
  return out;
}

std::optional<error> grid_size_error(std::size_t batch_values, std::size_t seq_values) {
  if (batch_values * seq_values <= max_sweep_cells) return std::nullopt;
  return error{batch_values >= seq_values ? "batch" : "seq",
               "the grid of " + std::to_string(batch_values) + " batch x " + std::to_string(seq_values) +
                   " seq values has " + std::to_string(batch_values * seq_values) + " cells, more than " +
                   std::to_string(max_sweep_cells) + "; give fewer steps (a:b:n)"};
}

}  // namespace llm_memory
