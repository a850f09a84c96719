// Argument validation, grid evaluation and parameter packing. Pure: no driver.
#include "internal.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace tilec_rt {

namespace {

const char* kAxisName[] = {"x", "y", "z"};
constexpr int64_t kGridMax[] = {INT32_MAX, 65535, 65535};

const char* kind_name(int kind) {
  switch (kind) {
    case TILEC_ARG_TENSOR: return "tensor";
    case TILEC_ARG_SCALAR: return "scalar";
    default: return nullptr;
  }
}

std::string kind_text(int kind) {
  const char* n = kind_name(kind);
  return n ? cat("a ", n) : cat("of invalid kind ", kind);
}

std::string dtype_text(int dtype) {
  return dtype_valid(dtype) ? std::string(dtype_name(dtype)) : cat("invalid (", dtype, ")");
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string param_prefix(const tilec_kernel& k, size_t i, const char* api) {
  return cat(api, ": kernel '", k.name, "' parameter ", i, " ('", k.params[i].name, "'): ");
}

void int_range(int dtype, int64_t& lo, int64_t& hi) {
  switch (dtype) {
    case TILEC_DTYPE_I1: lo = 0; hi = 1; break;
    case TILEC_DTYPE_I8: lo = INT8_MIN; hi = INT8_MAX; break;
    case TILEC_DTYPE_I16: lo = INT16_MIN; hi = INT16_MAX; break;
    case TILEC_DTYPE_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: lo = INT64_MIN; hi = INT64_MAX; break;
  }
}

void validate_tensor(const tilec_kernel& k, size_t i, const tilec_arg& a, const char* api) {
  const Param& p = k.params[i];
  auto bad = [&](const std::string& what) {
    fail(TILEC_ERROR_INVALID_ARGUMENT, param_prefix(k, i, api) + what);
  };
  if (a.rank != p.rank) bad(cat("rank is ", a.rank, ", metadata expects ", p.rank));
  for (int d = 0; d < p.rank; ++d) {
    if (a.shape[d] < 0) bad(cat("extent ", d, " is ", a.shape[d], " (negative)"));
    // Kernels index with 32-bit integers (tile.dim is an i32): a larger
    // extent would be cut short in the kernel.
    if (a.shape[d] > INT32_MAX)
      bad(cat("extent ", d, " is ", a.shape[d], ": kernels index with 32-bit integers, at most ",
              INT32_MAX));
    if (p.shape[d] != TILEC_DYNAMIC && a.shape[d] != p.shape[d])
      bad(cat("extent ", d, " is ", a.shape[d], ", metadata expects ", p.shape[d]));
    // A dim of extent 0 or 1 is never stepped over, so its stride cannot matter.
    if (p.strides[d] != TILEC_DYNAMIC && a.strides[d] != p.strides[d] && a.shape[d] > 1)
      bad(cat("stride ", d, " is ", a.strides[d], ", metadata expects ", p.strides[d]));
  }
  if (a.data == 0) bad("data pointer is NULL");
  if (a.data % static_cast<uint64_t>(p.align) != 0)
    bad(cat("base pointer ", hex(a.data), " is not aligned to ", p.align, " bytes"));
  if (!p.tma) return;
  // A kernel with a path for plain loads takes any view; it gets a zeroed
  // descriptor where TMA cannot read this one.
  const std::string problem = tma_problem(p, a);
  if (!problem.empty() && !p.tma_fallback) bad(problem);
}


void validate_scalar(const tilec_kernel& k, size_t i, const tilec_arg& a, const char* api) {
  const Param& p = k.params[i];
  if (!dtype_is_int(p.dtype)) return;
  int64_t lo = 0, hi = 0;
  int_range(p.dtype, lo, hi);
  if (a.value.i < lo || a.value.i > hi)
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         param_prefix(k, i, api) + cat("value ", a.value.i, " is out of range for ",
                                       dtype_name(p.dtype), " (", lo, "..", hi, ")"));
}

struct Evaluator {
  const tilec_kernel& k;
  const tilec_arg* args;
  const char* api;
  const GridExpr& g;
  std::string label;  // "grid x", "cost"
  int64_t sms;

  [[noreturn]] void error(const std::string& what) {
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         cat(api, ": kernel '", k.name, "' ", label, " '", g.text,
             "': ", what));
  }

  int64_t eval(int64_t index) {
    if (index < 0 || index >= static_cast<int64_t>(g.nodes.size())) error("malformed expression");
    const GridExpr::Node& n = g.nodes[static_cast<size_t>(index)];
    switch (n.op) {
      case GridExpr::Lit: return n.value;
      case GridExpr::Sms:
        if (sms < 1) error("sms (the number of multiprocessors) needs a GPU");
        return sms;
      case GridExpr::Dim:
      case GridExpr::Stride: {
        const char* fn = n.op == GridExpr::Dim ? "dim(" : "stride(";
        const tilec_arg& a = args[n.a];
        if (a.kind != TILEC_ARG_TENSOR)
          error(cat(fn, n.a, ",", n.b, "): argument ", n.a, " is not a tensor"));
        if (a.rank < 0 || n.b >= a.rank || n.b >= TILEC_MAX_RANK)
          error(cat(fn, n.a, ",", n.b, "): argument ", n.a, " has rank ", a.rank));
        return n.op == GridExpr::Dim ? a.shape[n.b] : a.strides[n.b];
      }
      case GridExpr::Arg: {
        const tilec_arg& a = args[n.a];
        if (a.kind != TILEC_ARG_SCALAR || !dtype_is_int(a.dtype))
          error(cat("arg(", n.a, "): argument ", n.a, " is not an integer scalar"));
        return a.value.i;
      }
      default: break;
    }
    const int64_t x = eval(n.a);
    const int64_t y = eval(n.b);
    int64_t r = 0;
    switch (n.op) {
      case GridExpr::Add:
        if (__builtin_add_overflow(x, y, &r)) error(cat("overflow in add(", x, ",", y, ")"));
        return r;
      case GridExpr::Sub:
        if (__builtin_sub_overflow(x, y, &r)) error(cat("overflow in sub(", x, ",", y, ")"));
        return r;
      case GridExpr::Mul:
        if (__builtin_mul_overflow(x, y, &r)) error(cat("overflow in mul(", x, ",", y, ")"));
        return r;
      case GridExpr::Min: return x < y ? x : y;
      case GridExpr::Max: return x > y ? x : y;
      case GridExpr::Div:
      case GridExpr::Cdiv: {
        const char* fn = n.op == GridExpr::Div ? "div" : "cdiv";
        if (y == 0) error(cat("division by zero in ", fn, "(", x, ",", y, ")"));
        if (x == INT64_MIN && y == -1) error(cat("overflow in ", fn, "(", x, ",", y, ")"));
        int64_t q = x / y;
        const int64_t rem = x % y;
        if (rem != 0) {
          const bool exact_sign_positive = (rem > 0) == (y > 0);  // true quotient > q
          if (n.op == GridExpr::Cdiv && exact_sign_positive) ++q;
          if (n.op == GridExpr::Div && !exact_sign_positive) --q;
        }
        return q;
      }
      default: error("malformed expression");
    }
  }
};

}  // namespace

const tilec_kernel& select_variant(const tilec_kernel& k, const tilec_arg* args, size_t n,
                                   const char* api, int64_t sms) {
  if (!args || n != k.params.size()) return k;
  for (size_t i = 0; k.plain && i < n; ++i) {
    const Param& p = k.params[i];
    if (p.tma && !p.tma_fallback && args[i].kind == TILEC_ARG_TENSOR &&
        args[i].rank == p.rank && !tma_problem(p, args[i]).empty())
      return *k.plain;
  }
  if (k.variants.empty() || sms < 1) return k;
  // The variants read the same views (TMA's rules do not depend on the box).
  const tilec_kernel* best = &k;
  int64_t best_cost = eval_cost(k, args, n, api, sms);
  for (const tilec_kernel* v : k.variants) {
    const int64_t c = eval_cost(*v, args, n, api, sms);
    if (c < best_cost) {
      best = v;
      best_cost = c;
    }
  }
  return *best;
}

int64_t eval_cost(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api,
                  int64_t sms) {
  check_arg_count(k, args, n, api);
  Evaluator ev{k, args, api, k.cost, "cost", sms};
  return ev.eval(k.cost.root);
}

int64_t eval_workspace(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api,
                       bool semaphores, int64_t sms) {
  if (!(semaphores ? k.has_semaphores : k.has_workspace)) return 0;
  const GridExpr& e = semaphores ? k.semaphores : k.workspace;
  const char* what = semaphores ? "semaphores" : "workspace";
  check_arg_count(k, args, n, api);
  Evaluator ev{k, args, api, e, what, sms};
  const int64_t bytes = ev.eval(e.root);
  if (bytes < 0)
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         cat(api, ": kernel '", k.name, "' ", what, " '", e.text, "' is ", bytes,
             " bytes for these arguments"));
  return bytes;
}

std::string tma_problem(const Param& p, const tilec_arg& a) {
  const int64_t esize = static_cast<int64_t>(dtype_size(p.dtype));
  const int inner = p.rank - 1;
  if (a.data % 16 != 0)
    return cat("tma: base pointer ", hex(a.data), " is not aligned to 16 bytes");
  if (a.strides[inner] != 1)
    return cat("tma: innermost stride (dim ", inner, ") is ", a.strides[inner], ", must be 1");
  for (int d = 0; d < p.rank; ++d)
    if (a.shape[d] < 1 || a.shape[d] > (int64_t{1} << 32))
      return cat("tma: extent ", d, " is ", a.shape[d], ", must be in 1..2^32");
  for (int d = 0; d < inner; ++d) {
    const int64_t s = a.strides[d];
    if (s <= 0 || s > (int64_t{1} << 40) / esize || (s * esize) % 16 != 0)
      return cat("tma: stride ", d, " is ", s, " elements (x ", esize,
                 " bytes), must be a positive multiple of 16 bytes below 2^40");
  }
  return "";
}

void check_arg_count(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api) {
  if (n != k.params.size()) {
    std::string names;
    for (const auto& p : k.params) names += (names.empty() ? "" : ", ") + p.name;
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         cat(api, ": kernel '", k.name, "' expects ", k.params.size(), " arguments (", names,
             "), got ", n));
  }
  if (n > 0 && !args) fail(TILEC_ERROR_INVALID_ARGUMENT, cat(api, ": args is NULL"));
}

void validate_args(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api) {
  check_arg_count(k, args, n, api);
  for (size_t i = 0; i < n; ++i) {
    const Param& p = k.params[i];
    const tilec_arg& a = args[i];
    if (a.kind != p.kind)
      fail(TILEC_ERROR_INVALID_ARGUMENT,
           param_prefix(k, i, api) +
               cat("is ", kind_text(a.kind), ", metadata expects a ", kind_name(p.kind)));
    if (a.dtype != p.dtype)
      fail(TILEC_ERROR_INVALID_ARGUMENT,
           param_prefix(k, i, api) +
               cat("dtype is ", dtype_text(a.dtype), ", metadata expects ", dtype_name(p.dtype)));
    if (p.kind == TILEC_ARG_TENSOR)
      validate_tensor(k, i, a, api);
    else
      validate_scalar(k, i, a, api);
  }
}

bool grid_uses_sms(const tilec_kernel& k) {
  for (const GridExpr& g : k.grid)
    if (g.uses_sms()) return true;
  return false;
}

void eval_grid(const tilec_kernel& k, const tilec_arg* args, size_t n, const char* api,
               uint32_t grid[3], int64_t sms) {
  check_arg_count(k, args, n, api);
  uint32_t g[3];
  for (int axis = 0; axis < 3; ++axis) {
    Evaluator ev{k, args, api, k.grid[axis], cat("grid ", kAxisName[axis]), sms};
    const int64_t v = ev.eval(k.grid[axis].root);
    if (v < 1 || v > kGridMax[axis])
      ev.error(cat("evaluates to ", v, " (must be in 1..", kGridMax[axis], ")"));
    g[axis] = static_cast<uint32_t>(v);
  }
  std::memcpy(grid, g, sizeof g);
}

void check_grid(const tilec_kernel& k, const uint32_t grid[3], const char* api, bool from_rule) {
  const char* origin = from_rule ? "" : " (explicit)";
  for (int axis = 0; axis < 3; ++axis) {
    if (grid[axis] < 1 || grid[axis] > kGridMax[axis])
      fail(TILEC_ERROR_INVALID_ARGUMENT,
           cat(api, ": kernel '", k.name, "' grid ", kAxisName[axis], origin, " = ", grid[axis],
               " (must be in 1..", kGridMax[axis], ")"));
    if (grid[axis] % k.cluster[axis] != 0)
      fail(TILEC_ERROR_INVALID_ARGUMENT,
           cat(api, ": kernel '", k.name, "' grid ", kAxisName[axis], origin, " = ", grid[axis],
               " is not a multiple of cluster ", kAxisName[axis], " = ", k.cluster[axis]));
  }
}

void pack_args(const tilec_kernel& k, const tilec_arg* args, uint8_t* buffer) {
  std::memset(buffer, 0, k.abi_size);
  for (size_t i = 0; i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    const tilec_arg& a = args[i];
    size_t abi = p.abi_first;
    auto put = [&](const void* v, size_t size) {
      std::memcpy(buffer + k.abi_offsets[abi], v, size);
      ++abi;
    };
    if (p.kind == TILEC_ARG_TENSOR) {
      if (p.tma) ++abi;  // the CUtensorMap, encoded at launch
      put(&a.data, 8);
      for (int d = 0; d < p.rank; ++d) put(&a.shape[d], 8);
      for (int d = 0; d < p.rank; ++d) put(&a.strides[d], 8);
      continue;
    }
    switch (p.dtype) {
      case TILEC_DTYPE_I1:
      case TILEC_DTYPE_I8: {
        const int8_t v = static_cast<int8_t>(a.value.i);
        put(&v, 1);
        break;
      }
      case TILEC_DTYPE_I16: {
        const int16_t v = static_cast<int16_t>(a.value.i);
        put(&v, 2);
        break;
      }
      case TILEC_DTYPE_I32: {
        const int32_t v = static_cast<int32_t>(a.value.i);
        put(&v, 4);
        break;
      }
      case TILEC_DTYPE_I64: put(&a.value.i, 8); break;
      case TILEC_DTYPE_F16: {
        const uint16_t v = float_to_f16_bits(a.value.f);
        put(&v, 2);
        break;
      }
      case TILEC_DTYPE_BF16: {
        const uint16_t v = float_to_bf16_bits(a.value.f);
        put(&v, 2);
        break;
      }
      case TILEC_DTYPE_F32: {
        const uint32_t v = float_to_f32_bits(a.value.f);  // no UB for out-of-range values
        put(&v, 4);
        break;
      }
      case TILEC_DTYPE_F64: put(&a.value.f, 8); break;
      case TILEC_DTYPE_F8E4M3: {
        const uint8_t v = float_to_f8e4m3_bits(a.value.f);
        put(&v, 1);
        break;
      }
      case TILEC_DTYPE_F8E5M2: {
        const uint8_t v = float_to_f8e5m2_bits(a.value.f);
        put(&v, 1);
        break;
      }
      default: break;
    }
  }
}

}  // namespace tilec_rt
