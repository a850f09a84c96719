//===- TileUtils.cpp - facts about tile values used by layout passes ------===//

#include "tilec/Dialect/Tile/TileDialect.h"

#include "tilec/Layout/BankConflicts.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

bool tile::isElementwise(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         !isa<arith::ConstantOp>(op);
}

bool tile::isRematerializable(Value v) {
  // Iterative walk over the producers, bounded so that large graphs simply
  // count as not rematerializable.
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (!isa<RankedTensorType>(cur.getType()))
      continue; // scalars are uniform and free to reuse
    Operation *def = cur.getDefiningOp();
    if (!def)
      return false;
    if (!seen.insert(def).second)
      continue;
    if (seen.size() > 64)
      return false;
    if (isa<SplatOp, IotaOp, arith::ConstantOp>(def))
      continue;
    if (isa<BroadcastOp, ExpandDimsOp, ConvertLayoutOp>(def) ||
        isElementwise(def)) {
      for (Value operand : def->getOperands())
        work.push_back(operand);
      continue;
    }
    return false;
  }
  return true;
}

Value tile::rematerialize(OpBuilder &b, Value v, const LinearLayout &layout,
                          function_ref<void(Operation *)> made,
                          RematerializeMemo *memo) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return v; // (scalars are uniform)
  Operation *def = v.getDefiningOp();
  assert(def && "rematerialize: not isRematerializable");
  Type want = withLayout(type, layout);
  if (memo)
    if (Value known = memo->lookup({v, want}))
      return known;
  Location loc = def->getLoc();
  Operation *op = nullptr;
  if (auto cv = dyn_cast<ConvertLayoutOp>(def))
    return rematerialize(b, cv.getSrc(), layout, made, memo);
  if (auto splat = dyn_cast<SplatOp>(def)) {
    op = SplatOp::create(b, loc, want, splat.getValue());
  } else if (isa<IotaOp>(def)) {
    op = IotaOp::create(b, loc, want);
  } else if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    op = arith::ConstantOp::create(
        b, loc, want,
        cast<DenseElementsAttr>(c.getValue()).reshape(cast<ShapedType>(want)));
  } else if (auto bc = dyn_cast<BroadcastOp>(def)) {
    std::vector<int> dims;
    auto src = cast<RankedTensorType>(bc.getSrc().getType());
    for (int64_t d = 0; d < src.getRank(); ++d)
      if (src.getDimSize(d) != type.getDimSize(d))
        dims.push_back(d);
    Value s = rematerialize(b, bc.getSrc(), layout.broadcastOperand(dims),
                            made, memo);
    op = BroadcastOp::create(b, loc, want, s);
  } else if (auto load = dyn_cast<LoadOp>(def)) {
    Value mask = load.getMask()
                     ? rematerialize(b, load.getMask(), layout, made, memo)
                     : Value();
    op = LoadOp::create(b, loc, want, load.getTensor(), load.getOffsets(),
                        mask, load.getPaddingAttr(), load.getInBounds());
  } else if (auto gather = dyn_cast<GatherOp>(def)) {
    // (An index table read through indices of its own: paged K's pages.)
    SmallVector<Value> indices;
    for (Value idx : gather.getIndices())
      indices.push_back(rematerialize(b, idx, layout, made, memo));
    Value mask = gather.getMask()
                     ? rematerialize(b, gather.getMask(), layout, made, memo)
                     : Value();
    op = GatherOp::create(b, loc, want, gather.getTensor(), indices, mask,
                          gather.getPaddingAttr());
  } else if (auto ed = dyn_cast<ExpandDimsOp>(def)) {
    Value s = rematerialize(b, ed.getSrc(), layout.squeezeDim(ed.getAxis()),
                            made, memo);
    op = ExpandDimsOp::create(b, loc, want, s, ed.getAxis());
  } else {
    assert(isElementwise(def) && def->getNumResults() == 1 &&
           "rematerialize: not isRematerializable");
    SmallVector<Value> operands;
    for (Value o : def->getOperands())
      operands.push_back(rematerialize(b, o, layout, made, memo));
    op = b.create(loc, def->getName().getIdentifier(), operands, {want},
                  def->getAttrs());
  }
  made(op);
  if (memo)
    (*memo)[{v, want}] = op->getResult(0);
  return op->getResult(0);
}

int tile::layoutWeight(Value v) {
  Operation *def = v.getDefiningOp();
  // A broadcast can produce any layout from a small conversion of its
  // operand, and a loop-carried value can be carried in another layout.
  if (isRematerializable(v) || isa_and_nonnull<BroadcastOp>(def))
    return 0;
  if (!def)
    return 1;
  if (isa<DotOp>(def))
    return 3;
  SetVector<Operation *> producers;
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  (void)getBackwardSlice(def, &producers, options);
  return llvm::any_of(producers, [](Operation *p) { return isa<DotOp>(p); })
             ? 3
             : 2;
}

//===----------------------------------------------------------------------===//
// Scratch
//===----------------------------------------------------------------------===//

/// `v` before layout conversions and reshapes that only drop leading unit
/// dims (a 2-d tile of a 3-d view).
static Value stripConversions(Value v) {
  while (true) {
    if (auto cv = v.getDefiningOp<ConvertLayoutOp>()) {
      v = cv.getSrc();
      continue;
    }
    auto rs = v.getDefiningOp<ReshapeOp>();
    if (!rs)
      return v;
    ArrayRef<int64_t> from = rs.getSrc().getType().getShape();
    ArrayRef<int64_t> to = rs.getType().getShape();
    if (from.size() <= to.size() || from.take_back(to.size()) != to ||
        llvm::any_of(from.drop_back(to.size()),
                      [](int64_t d) { return d != 1; }))
      return v;
    v = rs.getSrc();
  }
}

std::array<Value, 2> tile::dotOperands(DotOp dot) {
  return {dot.getA(), dot.getB()};
}

BlockArgument tile::carriedAccumulator(DotOp dot) {
  auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
  auto iterArg = dyn_cast<BlockArgument>(dot.getAcc());
  if (!loop || !iterArg || iterArg.getOwner() != loop.getBody() ||
      iterArg.getArgNumber() == 0 || !iterArg.hasOneUse() ||
      !dot.getResult().hasOneUse() ||
      loop.getBody()->getTerminator()->getOperand(iterArg.getArgNumber() -
                                                  1) != dot.getResult())
    return {};
  return iterArg;
}

bool tile::dependsOnProgramId(ValueRange values, int axis) {
  SetVector<Operation *> slice;
  BackwardSliceOptions opts;
  opts.omitBlockArguments = true;
  for (Value v : values)
    (void)getBackwardSlice(v, &slice, opts);
  return llvm::any_of(slice, [&](Operation *op) {
    auto pid = dyn_cast<ProgramIdOp>(op);
    return pid && int(pid.getAxis()) == axis;
  });
}

Operation *tile::operandSource(Value v, bool &transposed) {
  v = stripConversions(v);
  transposed = false;
  if (auto t = v.getDefiningOp<TransposeOp>()) {
    transposed = true;
    v = stripConversions(t.getSrc());
  }
  return v.getDefiningOp();
}

LoadOp tile::operandLoad(Value v, bool &transposed) {
  return dyn_cast_or_null<LoadOp>(operandSource(v, transposed));
}

bool tile::onlyDotsOf(LoadOp load, scf::ForOp loop) {
  return onlyDotsOf(load.getOperation(), loop);
}

bool tile::onlyDotsOf(Operation *op, scf::ForOp loop) {
  SmallVector<Value> work = {op->getResult(0)};
  bool any = false;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<ConvertLayoutOp, TransposeOp, ReshapeOp>(user)) {
        work.push_back(user->getResult(0));
        continue;
      }
      auto dot = dyn_cast<DotOp>(user);
      if (!dot || use.getOperandNumber() == 2 || dot->getParentOp() != loop)
        return false;
      any = true;
    }
  }
  return any;
}

int tile::nonKMajorOperand(DotOp dot) {
  // Slots keep the loaded tile's contiguous dim: A (MxK) is K-major when
  // loaded as is, B (KxN) when loaded as NxK and transposed.
  for (auto [idx, v] : llvm::enumerate(dotOperands(dot))) {
    bool transposed;
    if (operandLoad(v, transposed) && (idx == 0) == transposed)
      return int(idx);
  }
  return -1;
}

LinearLayout tile::kMajorCopyCoordinates(LoadOp load,
                                         ArrayRef<Operation *> chain) {
  auto type = cast<RankedTensorType>(load->getResult(0).getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  int rank = shape.size();
  int contig = load.getTensor().getType().getContiguousDim();
  if (contig < 0)
    contig = rank - 1;
  LinearLayout::Bases regs;
  auto bitsOf = [&](int d) {
    for (int64_t b = 1; b < shape[d]; b *= 2) {
      LinearLayout::Coords c(rank, 0);
      c[d] = b;
      regs.push_back(c);
    }
  };
  bitsOf(contig);
  for (int d = rank - 1; d >= 0; --d)
    if (d != contig)
      bitsOf(d);
  LinearLayout l(shape, regs, {}, {});
  for (Operation *op : chain)
    if (!isa<ConvertLayoutOp>(op))
      l = shapeOpLayout(op, l);
  return l;
}

LoadOp tile::kMajorCopyLoad(DotOp dot, SmallVectorImpl<Operation *> *chain) {
  Value v = dot.getB();
  auto b = cast<RankedTensorType>(v.getType());
  if (b.getElementType().getIntOrFloatBitWidth() != 8 || b.getRank() != 2)
    return {};
  // A is computed (fp8 attention's P), not loaded: a loaded A would share
  // B's channel, which one kind of copy fills.
  bool transposed;
  if (isa_and_nonnull<LoadOp, GatherOp>(operandSource(dot.getA(), transposed)))
    return {};
  SmallVector<Operation *> ops;
  Operation *def = v.getDefiningOp();
  while (isa_and_nonnull<ConvertLayoutOp, ReshapeOp, TransposeOp>(def)) {
    if (!def->getResult(0).hasOneUse())
      return {};
    ops.push_back(def);
    def = def->getOperand(0).getDefiningOp();
  }
  auto load = dyn_cast_or_null<LoadOp>(def);
  if (!load || load->getBlock() != dot->getBlock() || load.getMask() ||
      !load.padsWithZero() || !load->getResult(0).hasOneUse())
    return {};
  std::reverse(ops.begin(), ops.end());
  // The view's contiguous elements run along B's N (else wgmma reads the
  // tile K-major as it is).
  LinearLayout at = kMajorCopyCoordinates(load, ops);
  const LinearLayout::Bases &regs = at.getBases(InDim::Register);
  if (regs.empty() || regs.front()[1] == 0 || regs.front()[0] != 0)
    return {};
  if (chain)
    *chain = std::move(ops);
  return load;
}

bool tile::isScalarPure(Operation *op) {
  return isMemoryEffectFree(op) && op->getNumRegions() == 0 &&
         llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<RankedTensorType>(t); });
}

bool tile::canWalkTilesPersistently(func::FuncOp func) {
  auto grid = func->getAttrOfType<GridAttr>(kGridAttr);
  if (!grid)
    return false;
  for (unsigned axis = 0; axis < grid.getAxes().size(); ++axis)
    if (grid.axis(axis).usesSms())
      return false;
  // Every program id becomes the tile's (z: the batch member, outermost);
  // the number of programs would change.
  WalkResult r = func.walk([&](NumProgramsOp) { return WalkResult::interrupt(); });
  return !r.wasInterrupted();
}

Value tile::emitGridExpr(OpBuilder &b, Location loc, func::FuncOp func,
                   GridExprAttr e) {
  switch (e.getOp()) {
  case GridOp::Literal:
  case GridOp::Sms:
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), e.getValue());
  case GridOp::Dim:
    return DimOp::create(b, loc, func.getArgument(e.getValue()), e.getAxis());
  case GridOp::Stride:
    llvm_unreachable("stride() is verified to appear in costs only");
  case GridOp::Arg: {
    Value arg = func.getArgument(e.getValue());
    unsigned bits = arg.getType().getIntOrFloatBitWidth();
    if (bits > 32)
      return arith::TruncIOp::create(b, loc, b.getI32Type(), arg);
    if (bits < 32)
      return arith::ExtSIOp::create(b, loc, b.getI32Type(), arg);
    return arg;
  }
  default:
    break;
  }
  Value x = emitGridExpr(b, loc, func, e.lhs());
  Value y = emitGridExpr(b, loc, func, e.rhs());
  switch (e.getOp()) {
  case GridOp::CDiv:
    return arith::CeilDivSIOp::create(b, loc, x, y);
  case GridOp::Div:
    return arith::FloorDivSIOp::create(b, loc, x, y);
  case GridOp::Add:
    return arith::AddIOp::create(b, loc, x, y);
  case GridOp::Sub:
    return arith::SubIOp::create(b, loc, x, y);
  case GridOp::Mul:
    return arith::MulIOp::create(b, loc, x, y);
  case GridOp::Min:
    return arith::MinSIOp::create(b, loc, x, y);
  default:
    return arith::MaxSIOp::create(b, loc, x, y);
  }
}

std::string tile::variantPrefix(func::FuncOp func) {
  if (!func->hasAttr(kVariantOfAttr))
    return "";
  return ("in " + func.getSymName() + ": ").str();
}

unsigned tile::storageBytes(Type t) {
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

std::optional<RegisterBlock> tile::registerBlock(const LinearLayout &whole,
                                                 const LinearLayout &block,
                                                 ArrayRef<int64_t> offsets) {
  auto s = whole.slice(LinearLayout::Coords(offsets.begin(), offsets.end()),
                       block.getShape());
  if (!s || s->layout != block)
    return std::nullopt;
  return s;
}

/// Each block of a block op with its offsets, and the whole tile (the
/// source of an extract, the destination of an insert, a concat's result).
static void forEachBlock(
    Operation *op,
    function_ref<void(Value whole, Value block, ArrayRef<int64_t> offsets)>
        fn) {
  if (auto ex = dyn_cast<ExtractSliceOp>(op))
    return fn(ex.getSrc(), ex.getResult(), ex.getOffsets());
  if (auto in = dyn_cast<InsertSliceOp>(op))
    return fn(in.getDest(), in.getSrc(), in.getOffsets());
  auto cat = cast<ConcatOp>(op);
  for (auto [v, offsets] : llvm::zip(cat.getInputs(), cat.getBlockOffsets()))
    fn(cat.getResult(), v, offsets);
}

bool tile::isRegisterBlockOp(Operation *op) {
  bool renames = true;
  forEachBlock(op, [&](Value whole, Value block, ArrayRef<int64_t> offsets) {
    renames = renames && getLayoutAttr(whole.getType()) &&
              getLayoutAttr(block.getType()) &&
              registerBlock(getLayout(whole.getType()),
                            getLayout(block.getType()), offsets);
  });
  return renames;
}

int64_t tile::getScratchBytes(Operation *op) {
  if (isa<ExtractSliceOp, InsertSliceOp, ConcatOp>(op)) {
    if (isRegisterBlockOp(op))
      return 0;
    auto t = cast<RankedTensorType>(
        isa<ExtractSliceOp>(op) ? op->getOperand(0).getType()
                                : op->getResult(0).getType());
    return t.getNumElements() * storageBytes(t.getElementType());
  }
  if (auto cv = dyn_cast<ConvertLayoutOp>(op)) {
    auto t = cast<RankedTensorType>(cv.getType());
    if (!getLayoutAttr(t) || !getLayoutAttr(cv.getSrc().getType()))
      return 0;
    LinearLayout from = getLayout(cv.getSrc().getType());
    if (isRegisterPermutation(from, getLayout(t)) ||
        shuffleTransfer(from, getLayout(t)))
      return 0;
    return t.getNumElements() * storageBytes(t.getElementType());
  }
  if (auto red = dyn_cast<ReduceOp>(op)) {
    Type st = red.getSrc().getType();
    if (!getLayoutAttr(st))
      return 0;
    LinearLayout l = getLayout(st);
    int64_t warpsAlong = 1;
    for (const auto &c : l.getBases(InDim::Warp))
      if (c[red.getDim()] != 0)
        warpsAlong *= 2;
    if (warpsAlong == 1)
      return 0;
    int64_t numel = 1;
    if (auto rt = dyn_cast<RankedTensorType>(red.getType()))
      numel = rt.getNumElements();
    Type elt = cast<RankedTensorType>(st).getElementType();
    return warpsAlong * numel * std::max(4u, storageBytes(elt));
  }
  if (isa<ScanOp, SortOp, TopKOp>(op)) {
    // Partners in other warps meet in shared memory, one operand at a time.
    Type st = op->getOperand(0).getType();
    if (!getLayoutAttr(st))
      return 0;
    int dim = op->getAttrOfType<IntegerAttr>("dim").getInt();
    if (llvm::none_of(getLayout(st).getBases(InDim::Warp),
                      [&](const auto &c) { return c[dim] != 0; }))
      return 0;
    int64_t bytes = 0;
    for (Value v : op->getOperands())
      bytes = std::max<int64_t>(
          bytes, storageBytes(cast<RankedTensorType>(v.getType())
                                  .getElementType()));
    return cast<RankedTensorType>(st).getNumElements() * bytes;
  }
  if (isa<AtomicRMWOp, AtomicCASOp>(op) && !op->getResult(0).use_empty()) {
    // Old values passed to the copies of elements threads share.
    auto t = cast<RankedTensorType>(op->getResult(0).getType());
    if (!getLayoutAttr(t))
      return 0;
    auto masks = getLayout(t).getFreeVariableMasks();
    if (!masks["lane"] && !masks["warp"])
      return 0;
    return t.getNumElements() * storageBytes(t.getElementType());
  }
  return 0;
}

int64_t tile::getMaxScratchBytes(Operation *root) {
  int64_t bytes = 0;
  root->walk(
      [&](Operation *op) { bytes = std::max(bytes, getScratchBytes(op)); });
  return bytes;
}

LinearLayout tile::shapeOpLayout(Operation *op, const LinearLayout &src) {
  if (auto ed = dyn_cast<ExpandDimsOp>(op))
    return src.expandDims(ed.getAxis());
  if (auto tr = dyn_cast<TransposeOp>(op))
    return src.transpose(std::vector<int>(tr.getPermutation().begin(),
                                          tr.getPermutation().end()));
  auto s = cast<RankedTensorType>(cast<ReshapeOp>(op).getType()).getShape();
  return src.reshape(std::vector<int64_t>(s.begin(), s.end()));
}

ReshapeOp tile::reshapeAgain(OpBuilder &b, ReshapeOp reshape, Value src) {
  auto again = ReshapeOp::create(
      b, reshape.getLoc(),
      withLayout(reshape.getType(),
                 shapeOpLayout(reshape, getLayout(src.getType()))),
      src);
  again->setDiscardableAttrs(reshape->getDiscardableAttrDictionary());
  return again;
}

void tile::addTmaFallback(func::FuncOp func, ArrayRef<int32_t> args) {
  SmallVector<int32_t> all;
  if (auto old = func->getAttrOfType<DenseI32ArrayAttr>(kTmaFallbackAttr))
    all.assign(old.asArrayRef().begin(), old.asArrayRef().end());
  for (int32_t a : args)
    if (!llvm::is_contained(all, a))
      all.push_back(a);
  func->setAttr(kTmaFallbackAttr, DenseI32ArrayAttr::get(func.getContext(), all));
}

void tile::setArgumentType(func::FuncOp func, BlockArgument arg, Type type) {
  arg.setType(type);
  SmallVector<Type> types(func.getArgumentTypes());
  types[arg.getArgNumber()] = type;
  func.setType(FunctionType::get(func.getContext(), types, func.getResultTypes()));
}
