// Bundle container and metadata parsing (docs/BUNDLE.md). Pure: no driver.
#include "internal.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_set>

namespace tilec_rt {
namespace {

constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'C', 'B', 'N', '1'};
// Version 2: the CUBN and 'PTX ' sections repeat, one of each per module.
// Version 3: as 2, and a CUBN section may be empty (the module is PTX only).
constexpr uint32_t kFormatVersion = 3;
constexpr size_t kHeaderSize = 16;
constexpr size_t kSectionHeaderSize = 16;

uint32_t read_le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

uint64_t read_le64(const uint8_t* p) {
  return uint64_t{read_le32(p)} | uint64_t{read_le32(p + 4)} << 32;
}

std::string tag_string(const uint8_t* p) {
  bool printable = true;
  for (int i = 0; i < 4; ++i) printable = printable && p[i] >= 0x20 && p[i] < 0x7f;
  if (printable) return std::string(reinterpret_cast<const char*>(p), 4);
  static const char kHex[] = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 0; i < 4; ++i) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 15];
  }
  return s;
}

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Shows a token in a message; long or odd ones are shortened / escaped.
std::string show(const std::string& t) {
  std::string s;
  for (size_t i = 0; i < t.size() && i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    if (c >= 0x20 && c < 0x7f) {
      s += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      s += "\\x";
      s += kHex[c >> 4];
      s += kHex[c & 15];
    }
  }
  if (t.size() > 64) s += "...";
  return s;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 1024) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                       c == '$' || c == '.' || c == '%';
    const bool digit = c >= '0' && c <= '9';
    if (!(alpha || (digit && i > 0))) return false;
  }
  return true;
}

bool is_arch(const std::string& s) {
  if (s.size() < 4 || s.compare(0, 3, "sm_") != 0 || s.size() > 32) return false;
  size_t i = 3;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 3) return false;
  while (i < s.size() && s[i] >= 'a' && s[i] <= 'z') ++i;
  return i == s.size();
}

// Strict decimal integer (optional leading '-'); false on junk or overflow.
bool parse_int(const std::string& t, int64_t& out) {
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && t[i] == '-') {
    neg = true;
    ++i;
  }
  if (i == t.size()) return false;
  int64_t v = 0;  // accumulated negatively
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
    const int d = t[i] - '0';
    if (v < (INT64_MIN + d) / 10) return false;
    v = v * 10 - d;
  }
  if (!neg) {
    if (v == INT64_MIN) return false;
    v = -v;
  }
  out = v;
  return true;
}

const char* kDtypeList = "i1 i8 i16 i32 i64 f16 bf16 f32 f64 f8e4m3 f8e5m2";

class MetadataParser {
 public:
  MetadataParser(const std::string& text, tilec_bundle& b) : text_(text), b_(b) {}

  void run() {
    size_t start = 0;
    while (start <= text_.size()) {
      size_t end = text_.find('\n', start);
      if (end == std::string::npos) end = text_.size();
      ++line_;
      split(text_.substr(start, end - start));
      if (!tok_.empty() && tok_[0][0] != '#') line();
      start = end + 1;
    }
    if (kernel_)
      error_at(kernel_->line, cat("kernel '", kernel_->name, "' has no 'end'"));
    if (!header_seen_) fail(TILEC_ERROR_BAD_BUNDLE, "metadata is empty (expected 'tilec-bundle 1')");
    if (b_.arch.empty()) fail(TILEC_ERROR_BAD_BUNDLE, "metadata has no 'arch' line");
    if (b_.kernels.empty()) fail(TILEC_ERROR_BAD_BUNDLE, "metadata declares no kernels");
    resolve_plain_variants();
    resolve_shape_variants();
  }

  static bool same_params(const tilec_kernel& k, const tilec_kernel& other) {
    bool same = other.params.size() == k.params.size();
    for (size_t i = 0; same && i < k.params.size(); ++i) {
      const Param &a = k.params[i], &b = other.params[i];
      same = a.name == b.name && a.kind == b.kind && a.dtype == b.dtype && a.rank == b.rank;
    }
    return same;
  }

  // `variant NAME` names another kernel with the same parameters, itself
  // without variants; every member of the family has a `cost`.
  void resolve_shape_variants() {
    for (auto& k : b_.kernels) {
      for (size_t i = 0; i < k->variant_names.size(); ++i) {
        const std::string& name = k->variant_names[i];
        const int line = k->variant_lines[i];
        const tilec_kernel* v = find(name);
        const std::string where = cat("kernel '", k->name, "' variant '", name, "': ");
        if (!v || v == k.get()) error_at(line, where + "no such other kernel");
        if (!v->variant_names.empty()) error_at(line, where + "has variants itself");
        if (!same_params(*k, *v)) error_at(line, where + "its parameters differ");
        if (!v->has_cost) error_at(line, where + "has no 'cost'");
        k->variants.push_back(v);
      }
      if (!k->variants.empty() && !k->has_cost)
        error_at(k->line, cat("kernel '", k->name, "' has variants but no 'cost'"));
    }
  }

  // `plain NAME` names another kernel of the bundle with the same
  // parameters (names, kinds, dtypes, ranks), itself without a variant.
  void resolve_plain_variants() {
    for (auto& k : b_.kernels) {
      if (k->plain_name.empty()) continue;
      const tilec_kernel* plain = find(k->plain_name);
      const std::string where = cat("kernel '", k->name, "' plain '", k->plain_name, "': ");
      if (!plain || plain == k.get()) error_at(k->plain_line, where + "no such other kernel");
      if (!plain->plain_name.empty()) error_at(k->plain_line, where + "has a plain variant itself");
      if (!same_params(*k, *plain)) error_at(k->plain_line, where + "its parameters differ");
      k->plain = plain;
    }
  }

 private:
  [[noreturn]] void error(const std::string& what) { error_at(line_, what); }
  [[noreturn]] void error_at(int line, const std::string& what) {
    fail(TILEC_ERROR_BAD_BUNDLE, cat("metadata line ", line, ": ", what));
  }

  void split(const std::string& l) {
    tok_.clear();
    size_t i = 0;
    while (i < l.size()) {
      while (i < l.size() && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r')) ++i;
      const size_t s = i;
      while (i < l.size() && l[i] != ' ' && l[i] != '\t' && l[i] != '\r') ++i;
      if (i > s) tok_.push_back(l.substr(s, i - s));
    }
    cur_ = 0;
  }

  // Token cursor over the current line.
  const std::string& next(const std::string& what) {
    if (cur_ >= tok_.size()) error(cat("expected ", what, " after '", show(tok_[cur_ - 1]), "'"));
    return tok_[cur_++];
  }
  void keyword(const char* kw) {
    const std::string& t = next(cat("'", kw, "'"));
    if (t != kw) error(cat("expected '", kw, "', found '", show(t), "'"));
  }
  void done() {
    if (cur_ < tok_.size())
      error(cat("unexpected '", show(tok_[cur_]), "' at the end of '", tok_[0], "'"));
  }
  int64_t integer(const std::string& what, int64_t lo, int64_t hi) {
    const std::string& t = next(what);
    int64_t v = 0;
    if (!parse_int(t, v) || v < lo || v > hi)
      error(cat("bad ", what, " '", show(t), "' (expected an integer in ", lo, "..", hi, ")"));
    return v;
  }

  void line() {
    const std::string& kw = tok_[0];
    cur_ = 1;
    if (!header_seen_) {
      if (kw != "tilec-bundle")
        error(cat("expected 'tilec-bundle 1' as the first line, found '", show(kw), "'"));
      const std::string& v = next("a version");
      if (v != "1") error(cat("unsupported metadata version '", show(v), "' (expected 1)"));
      done();
      header_seen_ = true;
      return;
    }
    if (kw == "tilec-bundle") error("duplicate 'tilec-bundle' line");
    if (kw == "arch") return arch_line();
    if (kw == "kernel") return kernel_line();
    const bool in_kernel_kw = kw == "threads" || kw == "smem" || kw == "cluster" ||
                              kw == "grid" || kw == "param" || kw == "plain" || kw == "variant" ||
                              kw == "cost" || kw == "module" || kw == "workspace" ||
                              kw == "semaphores" || kw == "profile" || kw == "end";
    if (!in_kernel_kw) error(cat("unknown keyword '", show(kw), "'"));
    if (!kernel_) error(cat("'", kw, "' outside a kernel block"));
    if (kw == "threads") {
      once(seen_threads_, "threads");
      kernel_->threads = static_cast<uint32_t>(integer("threads value", 1, 1024));
      done();
    } else if (kw == "smem") {
      once(seen_smem_, "smem");
      kernel_->smem = static_cast<uint32_t>(integer("smem value", 0, UINT32_MAX));
      done();
    } else if (kw == "cluster") {
      once(seen_cluster_, "cluster");
      for (int i = 0; i < 3; ++i)
        kernel_->cluster[i] = static_cast<uint32_t>(integer("cluster dimension", 1, 65535));
      done();
    } else if (kw == "workspace") {
      expr_line("workspace", kernel_->has_workspace, kernel_->workspace,
                "a workspace size expression");
    } else if (kw == "semaphores") {
      expr_line("semaphores", kernel_->has_semaphores, kernel_->semaphores,
                "a semaphores size expression");
    } else if (kw == "profile") {
      profile_line();
    } else if (kw == "module") {
      once(seen_module_, "module");
      kernel_->module = static_cast<uint32_t>(integer("module index", 0, 65535));
      kernel_->module_line = line_;
      done();
    } else if (kw == "grid") {
      once(seen_grid_, "grid");
      static const char* kAxis[] = {"x", "y", "z"};
      for (int i = 0; i < 3; ++i) {
        const std::string& e = next(cat("a grid expression for ", kAxis[i]));
        try {
          kernel_->grid[i] = parse_grid_expr(e);
        } catch (const Error& err) {
          error(cat("grid ", kAxis[i], ": ", err.message));
        }
      }
      done();
    } else if (kw == "param") {
      param_line();
    } else if (kw == "plain") {
      if (!kernel_->plain_name.empty()) error(cat("duplicate 'plain' in kernel '", kernel_->name, "'"));
      const std::string& name = next("a kernel name");
      if (!is_identifier(name)) error(cat("bad kernel name '", show(name), "'"));
      done();
      kernel_->plain_name = name;
      kernel_->plain_line = line_;
    } else if (kw == "variant") {
      const std::string& name = next("a kernel name");
      if (!is_identifier(name)) error(cat("bad kernel name '", show(name), "'"));
      done();
      for (const std::string& v : kernel_->variant_names)
        if (v == name) error(cat("duplicate variant '", name, "' in kernel '", kernel_->name, "'"));
      kernel_->variant_names.push_back(name);
      kernel_->variant_lines.push_back(line_);
    } else if (kw == "cost") {
      expr_line("cost", kernel_->has_cost, kernel_->cost, "a cost expression");
      kernel_->cost_line = line_;
    } else {  // end
      done();
      end_kernel();
    }
  }

  // `profile frame EVENT...`: EVENT is SLOT:+SCOPE (a begin; SLOT:+SCOPE@
  // takes an argument) or SLOT:-SCOPE (an end); slots count from 0 in
  // steps of at most one.
  void profile_frame() {
    ProfileFrame f;
    while (cur_ < tok_.size()) {
      const std::string& t = tok_[cur_++];
      ProfileFrame::Event e{0, 0, false, false};
      const size_t colon = t.find(':');
      bool ok = colon != std::string::npos && colon + 1 < t.size() &&
                (t[colon + 1] == '+' || t[colon + 1] == '-');
      if (ok) {
        e.end = t[colon + 1] == '-';
        e.arg = !e.end && t.back() == '@';
        int64_t slot = -1, scope = -1;
        ok = parse_int(t.substr(0, colon), slot) &&
             parse_int(t.substr(colon + 2, t.size() - colon - 2 - (e.arg ? 1 : 0)), scope) &&
             slot >= 0 && slot < 10000 && scope >= 0 && scope < 1000000;
        e.slot = static_cast<uint32_t>(slot);
        e.scope = static_cast<uint32_t>(scope);
        ok = ok && (e.slot == f.slots || (f.slots > 0 && e.slot == f.slots - 1));
      }
      if (!ok)
        error(cat("bad profile frame event '", show(t),
                  "' (expected SLOT:+SCOPE, SLOT:+SCOPE@ or SLOT:-SCOPE, slots from 0 in "
                  "steps of one)"));
      f.slots = std::max(f.slots, e.slot + 1);
      f.args += e.arg ? 1 : 0;
      f.events.push_back(e);
    }
    if (f.events.empty()) error("'profile frame' lists no events");
    kernel_->profile_frames.push_back(std::move(f));
  }

  // `profile groups NAME...` / `profile scopes NAME...` / `profile frame`.
  void profile_line() {
    const std::string& what = next("'groups', 'scopes' or 'frame'");
    if (what == "frame") return profile_frame();
    if (what != "groups" && what != "scopes")
      error(cat("bad profile line '", show(what), "' (expected 'groups', 'scopes' or 'frame')"));
    bool groups = what == "groups";
    once(groups ? seen_profile_groups_ : seen_profile_scopes_,
         groups ? "profile groups" : "profile scopes");
    std::vector<std::string>& out = groups ? kernel_->profile_groups : kernel_->profile_scopes;
    while (cur_ < tok_.size()) {
      const std::string& name = tok_[cur_++];
      bool ok = !name.empty() && name.size() <= 48;
      for (char c : name)
        ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                    c == ':' || c == '#' || c == '-');
      if (!ok) error(cat("bad profile ", what, " name '", show(name), "'"));
      out.push_back(name);
    }
    if (out.empty()) error(cat("'profile ", what, "' lists no names"));
  }

  void once(bool& seen, const char* kw) {
    if (seen) error(cat("duplicate '", kw, "' in kernel '", kernel_->name, "'"));
    seen = true;
  }

  // `KW EXPR`, at most once a kernel: one grid-language expression.
  void expr_line(const char* kw, bool& seen, GridExpr& out, const char* what) {
    once(seen, kw);
    const std::string& e = next(what);
    try {
      out = parse_grid_expr(e);
    } catch (const Error& err) {
      error(cat(kw, ": ", err.message));
    }
    done();
  }

  void arch_line() {
    if (kernel_) error("'arch' inside a kernel block");
    if (!b_.arch.empty()) error("duplicate 'arch' line");
    if (!b_.kernels.empty()) error("'arch' must come before the first kernel");
    const std::string& a = next("an architecture");
    if (!is_arch(a)) error(cat("bad arch '", show(a), "' (expected e.g. sm_90a)"));
    done();
    b_.arch = a;
  }

  void kernel_line() {
    if (kernel_)
      error(cat("'kernel' inside kernel '", kernel_->name, "' (missing 'end' for the kernel at line ",
                kernel_->line, ")"));
    if (b_.arch.empty()) error("'arch' must come before the first kernel");
    const std::string& name = next("a kernel name");
    if (!is_identifier(name)) error(cat("bad kernel name '", show(name), "'"));
    done();
    if (b_.by_name.count(name)) error(cat("duplicate kernel '", name, "'"));
    param_names_.clear();
    kernel_ = std::make_unique<tilec_kernel>();
    kernel_->name = name;
    kernel_->line = line_;
    seen_threads_ = seen_smem_ = seen_cluster_ = seen_grid_ = seen_module_ = seen_profile_groups_ = seen_profile_scopes_ = false;
  }

  int dtype(const std::string& t) {
    const int d = dtype_from_name(t);
    if (d == TILEC_DTYPE_INVALID)
      error(cat("unknown dtype '", show(t), "' (expected one of ", kDtypeList, ")"));
    return d;
  }

  // A static value or '?'.
  int64_t extent_or_dynamic(const std::string& what) {
    const std::string& t = next(what);
    if (t == "?") return TILEC_DYNAMIC;
    int64_t v = 0;
    if (!parse_int(t, v) || v < 0)
      error(cat("bad ", what, " '", show(t), "' (expected a non-negative integer or '?')"));
    return v;
  }

  void param_line() {
    Param p;
    const std::string& kind = next("'tensor' or 'scalar'");
    if (kind != "tensor" && kind != "scalar")
      error(cat("bad param kind '", show(kind), "' (expected 'tensor' or 'scalar')"));
    p.name = next("a param name");
    if (!is_identifier(p.name)) error(cat("bad param name '", show(p.name), "'"));
    if (!param_names_.insert(p.name).second)
      error(cat("duplicate param '", p.name, "' in kernel '", kernel_->name, "'"));
    p.dtype = dtype(next("a dtype"));
    const size_t index = kernel_->params.size();
    const std::string where = cat("param ", index, " ('", p.name, "')");
    if (kind == "scalar") {
      p.kind = TILEC_ARG_SCALAR;
      done();
      kernel_->params.push_back(std::move(p));
      return;
    }
    p.kind = TILEC_ARG_TENSOR;
    {
      const std::string& t = next("a rank");
      int64_t r = 0;
      if (!parse_int(t, r) || r < 1 || r > TILEC_MAX_RANK)
        error(cat(where, ": rank '", show(t), "' out of range (expected 1..", TILEC_MAX_RANK, ")"));
      p.rank = static_cast<int>(r);
    }
    keyword("shape");
    for (int i = 0; i < p.rank; ++i) p.shape[i] = extent_or_dynamic(cat("extent ", i));
    keyword("strides");
    for (int i = 0; i < p.rank; ++i) p.strides[i] = extent_or_dynamic(cat("stride ", i));
    keyword("align");
    p.align = integer("align value", 1, int64_t{1} << 30);
    if ((p.align & (p.align - 1)) != 0)
      error(cat(where, ": align ", p.align, " is not a power of two"));
    if (cur_ < tok_.size()) {
      keyword("tma");
      p.tma = true;
      const size_t esize = dtype_size(p.dtype);
      for (int i = 0; i < p.rank; ++i)
        p.box[i] = static_cast<int32_t>(integer(cat("tma box ", i), 1, 256));
      keyword("swizzle");
      const std::string& sw = next("a swizzle");
      if (sw == "none") p.swizzle = 0;
      else if (sw == "32") p.swizzle = 32;
      else if (sw == "64") p.swizzle = 64;
      else if (sw == "128") p.swizzle = 128;
      else error(cat("bad swizzle '", show(sw), "' (expected none, 32, 64 or 128)"));
      keyword("fill");
      const std::string& fill = next("a fill");
      if (fill == "zero") p.fill = TILEC_FILL_ZERO;
      else if (fill == "nan") p.fill = TILEC_FILL_NAN;
      else error(cat("bad fill '", show(fill), "' (expected zero or nan)"));
      if (cur_ < tok_.size()) {
        keyword("fallback");
        p.tma_fallback = true;
      }
      // The rules of cuTensorMapEncodeTiled that the metadata alone decides.
      if (p.fill == TILEC_FILL_NAN &&
          !(p.dtype == TILEC_DTYPE_F16 || p.dtype == TILEC_DTYPE_BF16 ||
            p.dtype == TILEC_DTYPE_F32 || p.dtype == TILEC_DTYPE_F64))
        error(cat(where, ": tma fill nan needs an f16, bf16, f32 or f64 tensor, not ",
                  dtype_name(p.dtype)));
      const int inner = p.rank - 1;
      const size_t inner_bytes = static_cast<size_t>(p.box[inner]) * esize;
      if (inner_bytes % 16 != 0)
        error(cat(where, ": tma box innermost extent ", p.box[inner], " x ", esize,
                  " bytes is not a multiple of 16 bytes"));
      if (p.swizzle != 0 && inner_bytes > static_cast<size_t>(p.swizzle))
        error(cat(where, ": tma box innermost extent is ", inner_bytes,
                  " bytes, more than the swizzle span of ", p.swizzle, " bytes"));
      if (p.strides[inner] != TILEC_DYNAMIC && p.strides[inner] != 1)
        error(cat(where, ": tma tensor needs innermost stride 1, metadata has ", p.strides[inner]));
      for (int i = 0; i < inner; ++i)
        if (p.strides[i] != TILEC_DYNAMIC && (p.strides[i] % 16) * static_cast<int64_t>(esize) % 16 != 0)
          error(cat(where, ": tma stride ", i, " (", p.strides[i], " elements) is not a multiple of 16 bytes"));
    }
    done();
    kernel_->params.push_back(std::move(p));
  }

  void end_kernel() {
    tilec_kernel& k = *kernel_;
    if (!seen_threads_) error(cat("kernel '", k.name, "' has no 'threads' line"));
    if (!seen_grid_) error(cat("kernel '", k.name, "' has no 'grid' line"));
    if (seen_profile_groups_ != seen_profile_scopes_)
      error(cat("kernel '", k.name, "' has 'profile ", seen_profile_groups_ ? "groups" : "scopes",
                "' without 'profile ", seen_profile_groups_ ? "scopes" : "groups", "'"));
    if (seen_profile_groups_ && k.profile_groups.size() != (k.threads + 127) / 128)
      error(cat("kernel '", k.name, "' lists ", k.profile_groups.size(),
                " profile groups for ", k.threads, " threads (one a warp group: ",
                (k.threads + 127) / 128, ")"));
    if (!seen_profile_groups_ && !k.profile_frames.empty())
      error(cat("kernel '", k.name, "' has 'profile frame' lines without 'profile groups'"));
    for (const ProfileFrame& f : k.profile_frames)
      for (const ProfileFrame::Event& e : f.events)
        if (e.scope >= k.profile_scopes.size())
          error(cat("kernel '", k.name, "': a profile frame names scope ", e.scope, " of ",
                    k.profile_scopes.size()));
    // Every dim()/arg() of an expression must name a suitable param.
    static const char* kAxis[] = {"grid x", "grid y", "grid z", "cost", "workspace",
                                  "semaphores"};
    const GridExpr* exprs[] = {&k.grid[0], &k.grid[1], &k.grid[2],
                               &k.cost,    &k.workspace, &k.semaphores};
    for (int axis = 0; axis < 6; ++axis) {
      for (const auto& n : exprs[axis]->nodes) {
        if (n.op != GridExpr::Dim && n.op != GridExpr::Stride && n.op != GridExpr::Arg)
          continue;
        const std::string where = cat("kernel '", k.name, "' ", kAxis[axis], " '",
                                      exprs[axis]->text, "': ");
        if (n.a >= static_cast<int64_t>(k.params.size()))
          error(cat(where, "parameter ", n.a, " does not exist (the kernel has ", k.params.size(),
                    " params)"));
        const Param& p = k.params[static_cast<size_t>(n.a)];
        if (n.op == GridExpr::Stride && exprs[axis] != &k.cost)
          error(cat(where, "stride(", n.a, ",", n.b, ") is for costs only"));
        if (n.op == GridExpr::Dim || n.op == GridExpr::Stride) {
          const char* fn = n.op == GridExpr::Dim ? "dim(" : "stride(";
          if (p.kind != TILEC_ARG_TENSOR)
            error(cat(where, fn, n.a, ",", n.b, ") names scalar param '", p.name, "'"));
          if (n.b >= p.rank)
            error(cat(where, fn, n.a, ",", n.b, ") is out of range for rank-", p.rank,
                      " tensor '", p.name, "'"));
        } else {
          if (p.kind != TILEC_ARG_SCALAR || !dtype_is_int(p.dtype))
            error(cat(where, "arg(", n.a, ") names '", p.name, "', which is not an integer scalar"));
        }
      }
    }
    // The ABI layout: each parameter aligned to its size, CUtensorMap to 64.
    size_t off = 0;
    auto push = [&](size_t size, size_t align) {
      off = align_up(off, align);
      k.abi_offsets.push_back(off);
      k.abi_sizes.push_back(size);
      off += size;
    };
    for (Param& p : k.params) {
      p.abi_first = k.abi_offsets.size();
      if (p.kind == TILEC_ARG_SCALAR) {
        push(dtype_size(p.dtype), dtype_size(p.dtype));
        continue;
      }
      if (p.tma) push(kTensorMapSize, kTensorMapAlign);
      for (int i = 0; i < 1 + 2 * p.rank; ++i) push(8, 8);
    }
    // The workspace's and the semaphores' addresses: trailing 64-bit
    // parameters.
    if (k.has_workspace) push(8, 8);
    if (k.has_semaphores) push(8, 8);
    if (k.profiled()) {  // the profile buffer's address, records a group
      push(8, 8);
      push(4, 4);
    }
    k.abi_size = off;
    k.bundle = &b_;
    k.index = b_.kernels.size();
    b_.by_name.emplace(k.name, &k);
    b_.kernels.push_back(std::move(kernel_));
  }

  const tilec_kernel* find(const std::string& name) const {
    auto it = b_.by_name.find(name);
    return it == b_.by_name.end() ? nullptr : it->second;
  }

  const std::string& text_;
  tilec_bundle& b_;
  int line_ = 0;
  std::vector<std::string> tok_;
  size_t cur_ = 0;
  bool header_seen_ = false;
  std::unique_ptr<tilec_kernel> kernel_;
  bool seen_threads_ = false, seen_smem_ = false, seen_cluster_ = false, seen_grid_ = false,
       seen_module_ = false, seen_profile_groups_ = false, seen_profile_scopes_ = false;
  std::unordered_set<std::string> param_names_;  // of the kernel being read
};

}  // namespace

void parse_metadata(const std::string& text, tilec_bundle& bundle) {
  MetadataParser(text, bundle).run();
}

std::unique_ptr<tilec_bundle> parse_bundle(const uint8_t* data, size_t size) {
  if (size < kHeaderSize)
    fail(TILEC_ERROR_BAD_BUNDLE,
         cat("truncated header: ", size, " bytes, a bundle starts with a ", kHeaderSize,
             "-byte header"));
  if (std::memcmp(data, kMagic, sizeof(kMagic)) != 0)
    fail(TILEC_ERROR_BAD_BUNDLE, "bad magic (not a tilec bundle: expected 'TILECBN1')");
  const uint32_t version = read_le32(data + 8);
  if (version < 1 || version > kFormatVersion)
    fail(TILEC_ERROR_BAD_BUNDLE, cat("unsupported bundle format version ", version,
                                     " (expected 1 to ", kFormatVersion, ")"));
  const uint32_t num_sections = read_le32(data + 12);
  auto b = std::make_unique<tilec_bundle>();
  // FNV-1a over every byte: the bundle's identity in the autotuning cache.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 0x100000001b3ull;
  b->hash = hash;
  bool has_meta = false;
  size_t off = kHeaderSize;
  for (uint32_t i = 0; i < num_sections; ++i) {
    if (off > size || size - off < kSectionHeaderSize)
      fail(TILEC_ERROR_BAD_BUNDLE,
           cat("section ", i, " of ", num_sections, ": header at offset ", off,
               " runs past the end of the data (", size, " bytes)"));
    const uint8_t* h = data + off;
    const std::string tag = tag_string(h);
    const uint64_t payload = read_le64(h + 8);
    const size_t body = off + kSectionHeaderSize;
    if (payload > size - body)
      fail(TILEC_ERROR_BAD_BUNDLE,
           cat("section ", i, " ('", tag, "'): payload of ", payload, " bytes at offset ", body,
               " runs past the end of the data (", size, " bytes)"));
    const uint8_t* p = data + body;
    const size_t n = static_cast<size_t>(payload);
    if (tag == "META") {
      if (has_meta) fail(TILEC_ERROR_BAD_BUNDLE, "more than one META section");
      has_meta = true;
      const void* nul = std::memchr(p, 0, n);
      if (nul)
        fail(TILEC_ERROR_BAD_BUNDLE,
             cat("META section contains a NUL byte at offset ",
                 static_cast<const uint8_t*>(nul) - p));
      b->metadata.assign(reinterpret_cast<const char*>(p), n);
    } else if (tag == "CUBN") {
      if (b->has_cubin && version == 1)
        fail(TILEC_ERROR_BAD_BUNDLE, "more than one CUBN section (format version 1)");
      // Version 3: an empty CUBN section is a module carried as PTX alone
      // (JIT-compiled on its first use); its 'PTX ' section is checked below.
      if (n == 0 && version < 3) fail(TILEC_ERROR_BAD_BUNDLE, "empty CUBN section");
      b->has_cubin = true;
      b->cubins.emplace_back(p, p + n);
    } else if (tag == "PTX ") {
      if (b->has_ptx && version == 1)
        fail(TILEC_ERROR_BAD_BUNDLE, "more than one 'PTX ' section (format version 1)");
      if (n == 0) fail(TILEC_ERROR_BAD_BUNDLE, "empty 'PTX ' section");
      b->has_ptx = true;
      b->ptxs.emplace_back(reinterpret_cast<const char*>(p), n);
    }  // unknown tags are skipped
    off = body + n;
    off += (8 - off % 8) % 8;  // padding
  }
  if (!has_meta) fail(TILEC_ERROR_BAD_BUNDLE, "no META section");
  if (!b->has_cubin && !b->has_ptx) fail(TILEC_ERROR_BAD_BUNDLE, "no CUBN or 'PTX ' section");
  if (b->has_cubin && b->has_ptx && b->cubins.size() != b->ptxs.size())
    fail(TILEC_ERROR_BAD_BUNDLE, cat(b->cubins.size(), " CUBN sections but ", b->ptxs.size(),
                                     " 'PTX ' sections (one of each per module)"));
  // (Where both kinds are present their counts are equal, checked above.)
  if (!b->has_ptx)
    for (size_t m = 0; m < b->cubins.size(); ++m)
      if (b->cubins[m].empty())
        fail(TILEC_ERROR_BAD_BUNDLE,
             cat("module ", m, " has an empty CUBN section and no 'PTX ' section"));
  parse_metadata(b->metadata, *b);
  const size_t modules = b->module_count();
  for (const auto& k : b->kernels)
    if (k->module >= modules)
      fail(TILEC_ERROR_BAD_BUNDLE,
           cat("metadata line ", k->module_line, ": kernel '", k->name, "' is in module ",
               k->module, " but the bundle has ", modules, modules == 1 ? " module" : " modules"));
  return b;
}

}  // namespace tilec_rt
