// Grid expressions (docs/BUNDLE.md, `grid`): a recursive-descent parser.
//
//   expr    := integer | call
//   integer := '-'? [0-9]+            (fits in int64)
//   call    := 'sms'                  (the device's multiprocessor count)
//            | 'dim' '(' P ',' D ')'  (P, D: non-negative integer literals)
//            | 'arg' '(' P ')'
//            | F '(' expr ',' expr ')'   F in cdiv add sub mul div min max
//
// Evaluation is in eval_grid (validate.cpp).
#include "internal.h"

#include <cstring>

namespace tilec_rt {
namespace {

constexpr int kMaxDepth = 64;
constexpr size_t kMaxNodes = 1024;

struct Parser {
  const std::string& s;
  size_t pos = 0;
  GridExpr out;

  [[noreturn]] void error(const std::string& what) {
    fail(TILEC_ERROR_BAD_BUNDLE,
         cat("bad grid expression '", s, "': ", what, " at column ", pos + 1));
  }

  bool at_end() const { return pos >= s.size(); }
  char peek() const { return at_end() ? '\0' : s[pos]; }

  void expect(char c) {
    if (peek() != c) {
      if (at_end()) error(cat("expected '", c, "' but the expression ended"));
      error(cat("expected '", c, "', found '", peek(), "'"));
    }
    ++pos;
  }

  int64_t add_node(GridExpr::Op op, int64_t value, int64_t a, int64_t b) {
    if (out.nodes.size() >= kMaxNodes) error("expression too large");
    out.nodes.push_back({op, value, a, b});
    return static_cast<int64_t>(out.nodes.size() - 1);
  }

  // Parses a decimal integer literal (optionally negative).
  int64_t parse_integer() {
    bool neg = false;
    if (peek() == '-') {
      neg = true;
      ++pos;
    }
    if (!(peek() >= '0' && peek() <= '9')) error("expected a digit");
    // Accumulate as a negative number so that INT64_MIN fits.
    int64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      const int d = peek() - '0';
      if (v < (INT64_MIN + d) / 10) error("integer literal out of range");
      v = v * 10 - d;
      ++pos;
    }
    if (!neg) {
      if (v == INT64_MIN) error("integer literal out of range");
      v = -v;
    }
    return v;
  }

  int64_t parse_index_literal(const char* what) {
    if (!(peek() >= '0' && peek() <= '9'))
      error(cat("expected a non-negative integer literal (", what, ")"));
    return parse_integer();
  }

  int64_t parse_expr(int depth) {
    if (depth > kMaxDepth) error("expression nested too deeply");
    if (at_end()) error("expected an expression but the expression ended");
    const char c = peek();
    if (c == '-' || (c >= '0' && c <= '9'))
      return add_node(GridExpr::Lit, parse_integer(), 0, 0);
    if (!(c >= 'a' && c <= 'z')) error(cat("unexpected character '", c, "'"));
    const size_t start = pos;
    while (peek() >= 'a' && peek() <= 'z') ++pos;
    const std::string name = s.substr(start, pos - start);
    if (name == "sms") return add_node(GridExpr::Sms, 0, 0, 0);
    if (name == "dim" || name == "stride") {
      expect('(');
      const int64_t p = parse_index_literal("parameter index");
      expect(',');
      const int64_t d = parse_index_literal("dimension");
      expect(')');
      return add_node(name == "dim" ? GridExpr::Dim : GridExpr::Stride, 0, p, d);
    }
    if (name == "arg") {
      expect('(');
      const int64_t p = parse_index_literal("parameter index");
      expect(')');
      return add_node(GridExpr::Arg, 0, p, 0);
    }
    static const struct {
      const char* name;
      GridExpr::Op op;
    } kFns[] = {{"cdiv", GridExpr::Cdiv}, {"add", GridExpr::Add}, {"sub", GridExpr::Sub},
                {"mul", GridExpr::Mul},   {"div", GridExpr::Div}, {"min", GridExpr::Min},
                {"max", GridExpr::Max}};
    for (const auto& f : kFns) {
      if (name != f.name) continue;
      expect('(');
      const int64_t a = parse_expr(depth + 1);
      expect(',');
      const int64_t b = parse_expr(depth + 1);
      expect(')');
      return add_node(f.op, 0, a, b);
    }
    pos = start;
    error(cat("unknown function '", name,
              "' (expected sms, dim, stride, arg, cdiv, add, sub, mul, div, min or max)"));
  }
};

}  // namespace

GridExpr parse_grid_expr(const std::string& text) {
  Parser p{text, 0, {}};
  p.out.text = text;
  if (text.empty()) p.error("empty expression");
  p.out.root = p.parse_expr(0);
  if (!p.at_end()) p.error(cat("unexpected '", p.peek(), "' after the expression"));
  return std::move(p.out);
}

}  // namespace tilec_rt
