//===- ScanSortOpsToLLVM.cpp - tile.scan, tile.sort, tile.topk ------------===//
//
// The three ops are networks over the elements of a line along one dim in
// which element i meets element i ^ 2^k. In a layout whose bases along the
// dim are one per coordinate bit (LinearLayout::bitSources), that partner is
// in the same thread (a register basis: another register), the same warp (a
// lane basis: a butterfly shuffle) or another warp (a warp basis: through
// shared memory, the tile row-major in the scratch area).
//
// Scan: after steps 0..k-1 each element knows the combination of its block
// of 2^k elements (`total`) and of the part of the block before it
// (`prefix`); step k joins two blocks, the upper one putting the lower
// one's total before its prefix and its total.
// Sort: Batcher's bitonic network, log n (log n + 1) / 2 compare-exchange
// steps. Top-k: a sort, after which the elements at coordinates below k are
// gathered to where truncateDim's layout expects them.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// A bit of an element's coordinate: known when it comes from the register
/// index, an i1 otherwise.
struct Bit {
  std::optional<bool> known;
  Value value;
};

/// The partner exchange along one dim of a tile's layout.
class LineNetwork {
public:
  LineNetwork(Operation *op, Emitter &e, const LinearLayout &layout, int dim,
              std::vector<std::pair<InDim, unsigned>> sources)
      : op(op), e(e), layout(layout), dim(dim), sources(std::move(sources)) {}

  unsigned numBits() const { return sources.size(); }
  /// Whether bit k comes from the register index, and its mask there.
  bool isRegisterBit(unsigned k) const {
    return sources[k].first == InDim::Register;
  }
  size_t registerMask(unsigned k) const { return size_t(1) << sources[k].second; }

  /// Bit k of the coordinate along the dim of register `reg`'s element.
  Bit bit(int64_t reg, unsigned k) {
    auto [in, i] = sources[k];
    if (in == InDim::Register)
      return {bool((reg >> i) & 1), Value()};
    Value &cached = dynamicBits[k];
    if (!cached) {
      Value idx = in == InDim::Lane ? e.laneId() : e.warpId();
      Value one = e.andI(arith::ShRUIOp::create(e.b, e.loc, idx, e.i32(i)),
                         e.i32(1));
      cached = arith::TruncIOp::create(e.b, e.loc, e.b.getI1Type(), one);
    }
    return {std::nullopt, cached};
  }

  /// `set` where bit `b` is one, `clear` where it is zero.
  Value pick(const Bit &b, Value set, Value clear) {
    if (b.known)
      return *b.known ? set : clear;
    return arith::SelectOp::create(e.b, e.loc, b.value, set, clear);
  }

  /// Per register, the value `values` holds at the element whose
  /// coordinate differs in bit k.
  SmallVector<Value> partner(ArrayRef<Value> values, unsigned k) {
    auto [in, i] = sources[k];
    SmallVector<Value> out;
    if (in == InDim::Register) {
      for (size_t r = 0; r < values.size(); ++r)
        out.push_back(values[r ^ (size_t(1) << i)]);
      return out;
    }
    if (in == InDim::Lane) {
      // Registers of one block share their scan total: one shuffle each.
      DenseMap<Value, Value> shuffled;
      for (Value v : values) {
        Value &s = shuffled[v];
        if (!s)
          s = e.shuffleXor(v, 1 << i);
        out.push_back(s);
      }
      return out;
    }
    // Through shared memory: every thread writes its elements at their
    // row-major index and reads its partners'.
    if (!coords)
      coords.emplace(e, layout);
    int64_t inner = 1;
    auto shape = layout.getShape();
    for (unsigned d = dim + 1; d < shape.size(); ++d)
      inner *= shape[d];
    Type elt = values.front().getType();
    Type st = storageType(elt);
    auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext(), 3);
    Value base = e.sharedBase(op);
    auto at = [&](Value idx) {
      return LLVM::GEPOp::create(e.b, e.loc, ptrTy, st, base, ValueRange{idx});
    };
    e.barrier();
    SmallVector<Value> flats;
    for (size_t r = 0; r < values.size(); ++r) {
      flats.push_back(coords->flatIndex(r));
      LLVM::StoreOp::create(e.b, e.loc, e.toBits(values[r]), at(flats.back()));
    }
    e.barrier();
    for (Value flat : flats) {
      Value idx = e.xorI(flat, e.i32(inner << k));
      out.push_back(
          e.fromBits(LLVM::LoadOp::create(e.b, e.loc, st, at(idx)), elt));
    }
    return out;
  }

private:
  Operation *op; // the scan, sort or top-k (its scratch)
  Emitter &e;
  const LinearLayout &layout;
  int dim;
  std::vector<std::pair<InDim, unsigned>> sources;
  DenseMap<unsigned, Value> dynamicBits;
  std::optional<ThreadCoords> coords;
};

/// The network of `op`'s operand of type `t`, or an error.
FailureOr<LineNetwork> network(Operation *op, Emitter &e,
                               const LinearLayout &layout, int dim) {
  auto sources = layout.bitSources(dim);
  if (!sources)
    return op->emitOpError()
           << "cannot work along dim " << dim << " of a tile whose layout "
           << layout.toString() << " does not give each coordinate bit one "
           << "basis";
  return LineNetwork(op, e, layout, dim, *sources);
}

//===----------------------------------------------------------------------===//
// tile.scan
//===----------------------------------------------------------------------===//

struct ScanOpLowering : public OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    LinearLayout layout = getLayout(op.getSrc().getType());
    auto net = network(op, e, layout, op.getDim());
    if (failed(net))
      return failure();
    std::optional<ReduceKind> kind = op.getKind();
    // a before b.
    auto combine = [&](Value a, Value b) -> Value {
      if (kind)
        return combineReduce(e, *kind, a, b);
      IRMapping map;
      Block &body = op.getCombiner().front();
      map.map(body.getArgument(0), a);
      map.map(body.getArgument(1), b);
      for (Operation &inner : body.without_terminator())
        rewriter.clone(inner, map);
      return map.lookup(body.getTerminator()->getOperand(0));
    };

    SmallVector<Value> value(adaptor.getSrc().begin(), adaptor.getSrc().end());
    SmallVector<Value> total = value;
    // The prefix, if known to exist (null: none yet), and where it is only
    // known at run time, the i1 that says it exists (null: it does).
    SmallVector<Value> prefix(value.size()), has(value.size());
    // `withPrefix` where register r's prefix exists, else `without`.
    auto ifHas = [&](size_t r, Value withPrefix, Value without) -> Value {
      if (!has[r])
        return withPrefix;
      return arith::SelectOp::create(e.b, e.loc, has[r], withPrefix, without);
    };
    for (unsigned k = 0; k < net->numBits(); ++k) {
      SmallVector<Value> other = net->partner(total, k);
      // Registers with one total and partner total join them once (a pair
      // of registers shares its total, and a later lane or warp step
      // exchanges it once).
      DenseMap<std::pair<Value, Value>, Value> joined;
      SmallVector<Value> pairTotal(value.size());
      if (net->isRegisterBit(k))
        for (size_t r = 0; r < value.size(); ++r)
          if (!*net->bit(r, k).known) {
            Value &t = joined[{total[r], other[r]}];
            if (!t)
              t = combine(total[r], other[r]);
            pairTotal[r] = pairTotal[r ^ net->registerMask(k)] = t;
          }
      for (size_t r = 0; r < value.size(); ++r) {
        Bit b = net->bit(r, k);
        Value p = other[r];
        // The upper block: p comes first.
        auto upperPrefix = [&]() -> Value {
          return prefix[r] ? ifHas(r, combine(p, prefix[r]), p) : p;
        };
        if (b.known) {
          if (*b.known) {
            prefix[r] = upperPrefix();
            has[r] = Value();
          }
          total[r] = pairTotal[r];
          continue;
        }
        Value &t = joined[{total[r], p}];
        if (!t) {
          Value upperTotal = combine(p, total[r]);
          Value lowerTotal = kind ? upperTotal // sum, max, min commute
                                  : combine(total[r], p);
          t = net->pick(b, upperTotal, lowerTotal);
        }
        total[r] = t;
        if (!prefix[r]) {
          prefix[r] = p;
          has[r] = b.value;
        } else {
          prefix[r] = net->pick(b, upperPrefix(), prefix[r]);
          if (has[r])
            has[r] = arith::OrIOp::create(e.b, e.loc, has[r], b.value);
        }
      }
    }

    SmallVector<Value> results;
    Type elt = value.front().getType();
    for (size_t r = 0; r < value.size(); ++r) {
      if (op.getExclusive()) {
        Value id = reduceIdentity(e, *kind, elt);
        results.push_back(prefix[r] ? ifHas(r, prefix[r], id) : id);
        continue;
      }
      Value v = value[r];
      if (prefix[r])
        v = ifHas(r, combine(prefix[r], value[r]), value[r]);
      results.push_back(v);
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tile.sort and tile.topk
//===----------------------------------------------------------------------===//

Value lessThan(Emitter &e, Value a, Value b) {
  if (isa<FloatType>(a.getType()))
    return arith::CmpFOp::create(e.b, e.loc, arith::CmpFPredicate::OLT, a, b);
  return arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt, a, b);
}

/// Sorts each line of `tiles[0]` (the keys) along the network's dim,
/// permuting the other tiles alike.
void bitonicSort(Emitter &e, LineNetwork &net,
                 SmallVector<SmallVector<Value>> &tiles, bool descending) {
  unsigned m = net.numBits();
  size_t numRegs = tiles.front().size();
  for (unsigned s = 1; s <= m; ++s) {      // blocks of 2^s
    for (unsigned j = s; j-- > 0;) {       // partners 2^j apart
      SmallVector<SmallVector<Value>> other;
      for (auto &t : tiles)
        other.push_back(net.partner(t, j));
      for (size_t r = 0; r < numRegs; ++r) {
        // The lower element of a pair (bit j clear) keeps the smaller key
        // in a block sorted ascending (bit s clear; the last block
        // always), the larger one in a block sorted descending: it keeps
        // the smaller key where bits j and s agree (ascending overall).
        Bit lower = net.bit(r, j);
        Bit up = s == m ? Bit{false, Value()} : net.bit(r, s);
        Value mine = tiles[0][r], theirs = other[0][r];
        Value takeSmaller = lessThan(e, theirs, mine);
        Value takeLarger = lessThan(e, mine, theirs);
        // keepMin = (bit j == bit s) xor descending.
        Value take;
        if (lower.known && up.known) {
          bool keepMin = (*lower.known == *up.known) != descending;
          take = keepMin ? takeSmaller : takeLarger;
        } else {
          auto asValue = [&](const Bit &b) -> Value {
            return b.known ? Value(arith::ConstantIntOp::create(
                                 e.b, e.loc, e.b.getI1Type(), *b.known))
                           : b.value;
          };
          Value keepMin = arith::CmpIOp::create(
              e.b, e.loc,
              descending ? arith::CmpIPredicate::ne : arith::CmpIPredicate::eq,
              asValue(lower), asValue(up));
          take = arith::SelectOp::create(e.b, e.loc, keepMin, takeSmaller,
                                         takeLarger);
        }
        for (size_t t = 0; t < tiles.size(); ++t)
          tiles[t][r] = arith::SelectOp::create(e.b, e.loc, take,
                                                other[t][r], tiles[t][r]);
      }
    }
  }
}

/// The registers of `keys` and each of `values`, sorted along the
/// network's dim by the keys.
SmallVector<SmallVector<Value>> sortedRegisters(Emitter &e, LineNetwork &net,
                                                ValueRange keys,
                                                ArrayRef<ValueRange> values,
                                                bool descending) {
  SmallVector<SmallVector<Value>> tiles;
  tiles.emplace_back(keys.begin(), keys.end());
  for (ValueRange v : values)
    tiles.emplace_back(v.begin(), v.end());
  bitonicSort(e, net, tiles, descending);
  return tiles;
}

struct SortOpLowering : public OpConversionPattern<SortOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SortOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    LinearLayout layout = getLayout(op.getKeys().getType());
    auto net = network(op, e, layout, op.getDim());
    if (failed(net))
      return failure();
    rewriter.replaceOpWithMultiple(
        op, sortedRegisters(e, *net, adaptor.getKeys(), adaptor.getValues(),
                            op.getDescending()));
    return success();
  }
};

struct TopKOpLowering : public OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TopKOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    int dim = op.getDim();
    LinearLayout layout = getLayout(op.getKeys().getType());
    auto net = network(op, e, layout, dim);
    if (failed(net))
      return failure();
    auto tiles = sortedRegisters(e, *net, adaptor.getKeys(),
                                 adaptor.getValues(), !op.getSmallest());
    // Bits at and above log2(k): a lane or warp that holds an element
    // beyond k takes the one 2^j before it (its place in the truncated
    // layout); registers beyond k are dropped.
    int64_t k = op.getK();
    auto sources = *layout.bitSources(dim);
    int64_t dropMask = 0;
    for (unsigned j = 0; j < sources.size(); ++j) {
      if ((int64_t(1) << j) < k)
        continue;
      if (sources[j].first == InDim::Register) {
        dropMask |= int64_t(1) << sources[j].second;
        continue;
      }
      for (auto &t : tiles) {
        SmallVector<Value> other = net->partner(t, j);
        for (size_t r = 0; r < t.size(); ++r)
          t[r] = net->pick(net->bit(r, j), other[r], t[r]);
      }
    }
    SmallVector<SmallVector<Value>> results;
    for (auto &t : tiles) {
      SmallVector<Value> kept;
      for (size_t r = 0; r < t.size(); ++r)
        if ((int64_t(r) & dropMask) == 0)
          kept.push_back(t[r]);
      results.push_back(std::move(kept));
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

} // namespace

void tilec::populateTileScanSortPatterns(TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<ScanOpLowering, // tile.scan
               SortOpLowering, // tile.sort
               TopKOpLowering  // tile.topk
               >(converter, patterns.getContext());
}
