// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-allocate-shared-memory -convert-tile-to-llvm | FileCheck %s

// Views become pointer, extents, strides; program ids read the special
// registers; loads check at run time (uniformly) whether the vector path
// applies and otherwise load element by element; stores likewise.
// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr<1>, %[[N:.*]]: i64, %[[S:.*]]: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME: tile.shared_memory = 0 : i64
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: llvm.ptrtoint %[[P]]
// CHECK: scf.if
// The vector path, its stride checked to be 1, addresses with a constant
// 1 (its registers' constant offsets fold into the address).
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: arith.muli %{{.*}}, %[[ONE]] : i64
// CHECK: llvm.inline_asm has_side_effects {{.*}}ld.global.v4.b32
// CHECK: } else {
// CHECK: llvm.inline_asm has_side_effects {{.*}}ld.global.b32
// CHECK: scf.if
// CHECK: st.global.v4.b32
// CHECK: } else {
// CHECK: st.global.b32
func.func @copy(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 512)>} {
  %pid = tile.program_id x
  %c512 = arith.constant 512 : i32
  %off = arith.muli %pid, %c512 : i32
  %t = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<512xf32>
  tile.store %t, %y[%off] : !tile.tile<512xf32>, !tile.tensor<?xf32>
  return
}

// -----

// in_bounds accesses (the compiler's own workspace): no run-time vector
// test, no predicate, the layout's widest vectors only.
// CHECK-LABEL: func.func @in_bounds
// CHECK-NOT: scf.if
// CHECK-NOT: @p
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "ld.global.v4.b32 {$0, $1, $2, $3}, [$4];"
// CHECK-NOT: ld.global.b32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "st.global.v4.b32 [$0], {$1, $2, $3, $4};"
// CHECK-NOT: st.global.b32
// CHECK-NOT: scf.if
func.func @in_bounds(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 512)>} {
  %pid = tile.program_id x
  %c512 = arith.constant 512 : i32
  %off = arith.muli %pid, %c512 : i32
  %t = tile.load %x[%off] {in_bounds} : !tile.tensor<?xf32> -> !tile.tile<512xf32>
  tile.store %t, %y[%off] {in_bounds} : !tile.tile<512xf32>, !tile.tensor<?xf32>
  return
}

// -----

// Padding fills the words the predicated load does not write (-inf here).
// CHECK-LABEL: func.func @padding
// CHECK: %c-8388608_i32 = arith.constant -8388608 : i32
// CHECK: ld.global.v4.b32{{.*}} %c-8388608_i32, %c-8388608_i32{{.*}}, %c-8388608_i32{{.*}}, %c-8388608_i32
func.func @padding(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] {padding = 0xFF800000 : f32} : !tile.tensor<?xf32> -> !tile.tile<512xf32>
  tile.store %t, %y[%c0] : !tile.tile<512xf32>, !tile.tensor<?xf32>
  return
}

// -----

// A row reduction with lanes and warps along the row: shuffles, then a
// round trip through shared memory between barriers.
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: tile.shared_memory = 16 : i64
// CHECK: arith.addf
// CHECK: shfl.sync.bfly.b32 $0, $1, 1, 0x1f, 0xffffffff;
// CHECK: shfl.sync.bfly.b32 $0, $1, 2, 0x1f, 0xffffffff;
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
func.func @row_sum(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> !tile.tile<1x1024xf32>
  %s = tile.reduce sum %t dim 1 : !tile.tile<1x1024xf32> -> !tile.tile<1xf32>
  tile.store %s, %y[%c0] : !tile.tile<1xf32>, !tile.tensor<?xf32>
  return
}

// -----

// mma.sync on fragments; operands reach their layouts through shared memory:
// 16-byte stores, and ldmatrix (.trans for B, whose K runs down the buffer).
// CHECK-LABEL: func.func @dot
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<8xi16>, !llvm.ptr<3>
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-SAME: "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"
func.func @dot(%a: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
  tile.store %d, %c[%c0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// A swizzled operand's ldmatrix addresses: only the offset bits that this
// lane's row and warp can also set are XORed in (the 128-byte swizzle's
// 16-byte chunks of one row); the rest (the second 64 columns of A) are
// added, so they fold into the address and the fragments share a register.
// CHECK-LABEL: func.func @dot_wide
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.getelementptr %{{.*}}[%[[ROW:[0-9]+]]] : (!llvm.ptr<3>, i32)
// CHECK-NEXT: nvvm.ldmatrix
// CHECK: arith.xori %[[ROW]], %{{.*}} : i32
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: nvvm.ldmatrix
// CHECK: arith.addi %[[ROW]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: nvvm.ldmatrix
func.func @dot_wide(%a: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<64x128xbf16>, !tile.tile<128x64xbf16> -> !tile.tile<64x64xf32>
  tile.store %d, %c[%c0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// fp8 inputs use m16n8k32, f16 accumulation the f16 variant.
// CHECK-LABEL: func.func @dot_fp8
// CHECK: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
func.func @dot_fp8(%a: !tile.tensor<?x?xf8E4M3FN>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<64x32xf8E4M3FN>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf8E4M3FN> -> !tile.tile<32x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<64x32xf8E4M3FN>, !tile.tile<32x64xf8E4M3FN> -> !tile.tile<64x64xf32>
  tile.store %d, %c[%c0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// CHECK-LABEL: func.func @dot_f16_acc
// CHECK: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
// CHECK-SAME: "=r,=r,r,r,r,r,r,r,0,1"
func.func @dot_f16_acc(%a: !tile.tensor<?x?xf16>, %c: !tile.tensor<?x?xf16>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf16> -> !tile.tile<64x32xf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xf16> -> !tile.tile<32x64xf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf16>
  %d = tile.dot %ta, %tb, %z : !tile.tile<64x32xf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf16>
  tile.store %d, %c[%c0, %c0] : !tile.tile<64x64xf16>, !tile.tensor<?x?xf16>
  return
}

// -----

// Elementwise ops apply per register; scf.for carries one scalar per register.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32) : i32
// CHECK-COUNT-4: arith.addf {{.*}} : f32
func.func @loop(%x: !tile.tensor<?xf32>, %n: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %z = arith.constant dense<0.0> : !tile.tile<512xf32>
  %r = scf.for %j = %c0 to %n step %c512 iter_args(%acc = %z) -> (!tile.tile<512xf32>) : i32 {
    %t = tile.load %x[%j] : !tile.tensor<?xf32> -> !tile.tile<512xf32>
    %s = arith.addf %acc, %t : !tile.tile<512xf32>
    scf.yield %s : !tile.tile<512xf32>
  }
  tile.store %r, %x[%c0] : !tile.tile<512xf32>, !tile.tensor<?xf32>
  return
}

// -----

// A constant that is not a splat lives in a read-only global; each register
// loads its element.
// CHECK: llvm.mlir.global internal constant @tilec_const(dense<"0x0000803F00000040
// CHECK-SAME: : tensor<128xi32>) {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<128 x i32>
// CHECK-LABEL: func.func @table
// CHECK: %[[T:.*]] = llvm.mlir.addressof @tilec_const : !llvm.ptr<1>
// CHECK: llvm.getelementptr %[[T]]
// CHECK: llvm.load
func.func @table(%x: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : !tile.tile<128xf32>
  tile.store %k, %x[%c0] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}

// -----

// scf.if yields one scalar per register of each tile result.
// CHECK-LABEL: func.func @branch
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32)
// CHECK-COUNT-4: arith.addf {{.*}} : f32
// CHECK: scf.yield {{.*}} : f32, f32, f32, f32
// CHECK: } else {
func.func @branch(%x: !tile.tensor<?xf32>, %c: i1)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<512xf32>
  %r = scf.if %c -> (!tile.tile<512xf32>) {
    %d = arith.addf %t, %t : !tile.tile<512xf32>
    scf.yield %d : !tile.tile<512xf32>
  } else {
    scf.yield %t : !tile.tile<512xf32>
  }
  tile.store %r, %x[%c0] : !tile.tile<512xf32>, !tile.tensor<?xf32>
  return
}

// -----

#a = #tile.linear<register = [[1], [2]], lane = [[4], [8], [16], [0], [0]], warp = []>
#b = #tile.linear<register = [[1], [2]], lane = [[16], [8], [4], [0], [0]], warp = []>

// Elements that stay in their warp move with shuffles, one a register, and
// no shared memory.
// CHECK-LABEL: func.func @shuffles
// CHECK-SAME: tile.shared_memory = 0 : i64
// CHECK-COUNT-4: shfl.sync.idx.b32
// CHECK-NOT: nvvm.barrier0
func.func @shuffles(%x: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<32xf32, #a>
  %p = tile.convert_layout %t : !tile.tile<32xf32, #a> -> !tile.tile<32xf32, #b>
  tile.store %p, %x[%c0] : !tile.tile<32xf32, #b>, !tile.tensor<?xf32>
  return
}

// -----

// A bf16 result in mma fragments goes to the coalesced store layout through
// shared memory with stmatrix.
// CHECK-LABEL: func.func @stmatrix
// CHECK: mma.sync.aligned.m16n8k16
// CHECK: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: st.global.v4.b32
func.func @stmatrix(%a: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xbf16>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %ta = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x32xbf16>
  %tb = tile.load %a[%c0, %c0] : !tile.tensor<?x?xbf16> -> !tile.tile<32x64xbf16>
  %z = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %d = tile.dot %ta, %tb, %z : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
  %o = arith.truncf %d : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
  tile.store %o, %c[%c0, %c0] : !tile.tile<64x64xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

// Element-wise addressing. A gather loads each element under its bounds
// check, the padding in its place otherwise. An atomic nobody reads with
// relaxed order is a `red`; f32 max runs max.s32 on non-negative values and
// min.u32 on negative ones. A read atomic is an `atom` giving 0 where
// masked off; 16 elements in 4 warps repeat across threads, so only the
// thread whose free lane and warp bits are zero touches memory, and the
// old values reach the other copies through shared memory (the kernel's
// scratch: 16 x 4 bytes).
// CHECK-LABEL: func.func @indexed
// CHECK-SAME: tile.shared_memory = 64 : i64
// CHECK: mov.b32 $0, $3;\0A@p ld.global.b32 $0, [$2];
// CHECK: setp.ge.and.s32 q, $2, 0, p;\0Asetp.lt.and.s32 n, $2, 0, p;\0A@q red.relaxed.gpu.global.max.s32 [$1], $2;\0A@n red.relaxed.gpu.global.min.u32 [$1], $2;
// CHECK: %[[OWN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: mov.b32 $0, 0;\0A@p atom.acq_rel.gpu.global.add.u32 $0, [$2], $3;
// CHECK: nvvm.barrier0
// CHECK-NEXT: scf.if %[[OWN]] {
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
func.func @indexed(%t: !tile.tensor<?xf32>, %c: !tile.tensor<?xi32>, %o: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %i = tile.iota : !tile.tile<16xi32>
  %g = tile.gather %t[%i] {padding = 2.0 : f32} : !tile.tensor<?xf32>, !tile.tile<16xi32> -> !tile.tile<16xf32>
  %r = tile.atomic_rmw max %g, %t[%i] sem relaxed : !tile.tile<16xf32>, !tile.tensor<?xf32>, !tile.tile<16xi32>
  %one = arith.constant dense<1> : !tile.tile<16xi32>
  %z = arith.constant dense<0> : !tile.tile<16xi32>
  %old = tile.atomic_rmw add %one, %c[%z] : !tile.tile<16xi32>, !tile.tensor<?xi32>, !tile.tile<16xi32>
  %c0 = arith.constant 0 : i32
  tile.store %old, %o[%c0] : !tile.tile<16xi32>, !tile.tensor<?xi32>
  return
}

// -----

// A gather whose column index counts up along the rows of the layout (an
// embedding lookup: row ids broadcast along the columns, c0 + iota along
// them) loads 4 f32 a vector under the uniform check (unit inner stride,
// aligned base, extent and row stride), element by element otherwise; the
// mask (rows in range) is the same along a run. The scatter back writes
// vectors the same way. Columns 2 * iota are not consecutive: one element
// at a time only.
// CHECK-LABEL: func.func @gather_rows_vector
// CHECK: scf.if
// CHECK-COUNT-4: @p ld.global.v4.b32
// CHECK: } else {
// CHECK-COUNT-16: @p ld.global.b32
// CHECK: scf.if
// CHECK-COUNT-4: @p st.global.v4.b32
// CHECK: } else {
// CHECK-COUNT-16: @p st.global.b32
// CHECK-NOT: ld.global.v4
// CHECK: return
func.func @gather_rows_vector(%table: !tile.tensor<?x?xf32>, %ids: !tile.tensor<?xi32>,
                              %out: !tile.tensor<?x?xf32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %p = tile.program_id x
  %col0 = arith.muli %p, %c64 : i32
  %id = tile.load %ids[%c0] : !tile.tensor<?xi32> -> !tile.tile<32xi32>
  %id2 = tile.expand_dims %id axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %rows = tile.broadcast %id2 : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %iota = tile.iota : !tile.tile<64xi32>
  %c0t = tile.splat %col0 : i32 -> !tile.tile<64xi32>
  %col = arith.addi %iota, %c0t : !tile.tile<64xi32>
  %col2 = tile.expand_dims %col axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %cols = tile.broadcast %col2 : !tile.tile<1x64xi32> -> !tile.tile<32x64xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<32x64xi32>
  %ok = arith.cmpi slt, %rows, %nt : !tile.tile<32x64xi32>
  %g = tile.gather %table[%rows, %cols] mask(%ok : !tile.tile<32x64xi1>)
      : !tile.tensor<?x?xf32>, !tile.tile<32x64xi32>, !tile.tile<32x64xi32> -> !tile.tile<32x64xf32>
  tile.scatter %g, %out[%rows, %cols]
      : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>, !tile.tile<32x64xi32>, !tile.tile<32x64xi32>
  %two = arith.constant dense<2> : !tile.tile<32x64xi32>
  %odd = arith.muli %cols, %two : !tile.tile<32x64xi32>
  %s = tile.gather %table[%rows, %odd]
      : !tile.tensor<?x?xf32>, !tile.tile<32x64xi32>, !tile.tile<32x64xi32> -> !tile.tile<32x64xf32>
  tile.store %s, %out[%c0, %c0] : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// A masked load and store go element by element (no vector path), the
// mask in each element's predicate.
// CHECK-LABEL: func.func @masked
// CHECK-NOT: scf.if
// CHECK: %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: %[[P:.*]] = arith.extui %[[IN]] : i1 to i32
// CHECK: ld.global.b32 $0, [$2];{{.*}}%[[P]]
// CHECK-NOT: ld.global.v
// CHECK: st.global.b32
// CHECK-NOT: st.global.v
func.func @masked(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %i = tile.iota : !tile.tile<128xi32>
  %three = arith.constant dense<3> : !tile.tile<128xi32>
  %m = arith.cmpi sgt, %i, %three : !tile.tile<128xi32>
  %t = tile.load %x[%c0] mask(%m : !tile.tile<128xi1>) : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  tile.store %t, %y[%c0] mask(%m : !tile.tile<128xi1>) : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}

// -----

// A mask constant along each row (rows in range, broadcast along the
// columns: the grouped GEMM's partial tiles) lets rows go as vectors under
// the same uniform check, each vector under its first element's mask; the
// element-by-element path stays for views the check refuses.
// CHECK-LABEL: func.func @row_masked
// CHECK: scf.if
// CHECK: ld.global.v4.b32
// CHECK: else
// CHECK: ld.global.b32
// CHECK: scf.if
// CHECK: st.global.v4.b32
// CHECK: else
// CHECK: st.global.b32
func.func @row_masked(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>, %rows: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %i = tile.iota : !tile.tile<32xi32>
  %n = tile.splat %rows : i32 -> !tile.tile<32xi32>
  %in = arith.cmpi slt, %i, %n : !tile.tile<32xi32>
  %in2 = tile.expand_dims %in axis 1 : !tile.tile<32xi1> -> !tile.tile<32x1xi1>
  %m = tile.broadcast %in2 : !tile.tile<32x1xi1> -> !tile.tile<32x64xi1>
  %t = tile.load %x[%c0, %c0] mask(%m : !tile.tile<32x64xi1>) : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
  tile.store %t, %y[%c0, %c0] mask(%m : !tile.tile<32x64xi1>) : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// The same row mask reshaped to a 3-D view's rank (O[h, rows, :]) still
// lets rows go as vectors.
// CHECK-LABEL: func.func @row_masked_3d
// CHECK: scf.if
// CHECK: st.global.v4.b32
// CHECK: else
// CHECK: st.global.b32
func.func @row_masked_3d(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?x64xf32>, %rows: i32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %i = tile.iota : !tile.tile<32xi32>
  %n = tile.splat %rows : i32 -> !tile.tile<32xi32>
  %in = arith.cmpi slt, %i, %n : !tile.tile<32xi32>
  %in2 = tile.expand_dims %in axis 1 : !tile.tile<32xi1> -> !tile.tile<32x1xi1>
  %m = tile.broadcast %in2 : !tile.tile<32x1xi1> -> !tile.tile<32x64xi1>
  %m3 = tile.reshape %m : !tile.tile<32x64xi1> -> !tile.tile<1x32x64xi1>
  %t = tile.load %x[%c0, %c0] : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
  %t3 = tile.reshape %t : !tile.tile<32x64xf32> -> !tile.tile<1x32x64xf32>
  tile.store %t3, %y[%c0, %c0, %c0] mask(%m3 : !tile.tile<1x32x64xi1>) : !tile.tile<1x32x64xf32>, !tile.tensor<?x?x64xf32>
  return
}

// -----

// Philox4x32-10 per register: two 32x32->64 products a round (the
// multipliers 0xD2511F53 and 0xCD9E8D57), the key bumped by the Weyl
// constants (0x9E3779B9, 0xBB67AE85 as i32) between rounds; uniform
// floats from the top 24 bits of the first word.
// CHECK-LABEL: func.func @rand
// CHECK: arith.muli %{{.*}}, %c3528531795_i64 : i64
// CHECK: arith.muli %{{.*}}, %c3449720151_i64 : i64
// CHECK: arith.constant -1640531527 : i32
// CHECK: arith.constant -1150833019 : i32
// CHECK-COUNT-9: arith.muli %{{.*}}, %c3528531795_i64_{{[0-9]+}} : i64
// CHECK-NOT: arith.muli %{{.*}}, %c3528531795_i64
// CHECK: arith.shrui %{{.*}}, %c8_i32
// CHECK: arith.uitofp
// CHECK: arith.constant 5.96046448E-8 : f32
func.func @rand(%u: !tile.tensor<?xf32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %i = tile.iota : !tile.tile<32xi32>
  %r = tile.rand uniform %i key %k, %k : !tile.tile<32xi32> -> !tile.tile<32xf32>
  tile.store %r, %u[%c0] : !tile.tile<32xf32>, !tile.tensor<?xf32>
  return
}

// -----

// An unused acq_rel atomic on elements threads share: no scratch and no
// sharing, but a barrier before the owners' atomics (their release covers
// the copies' earlier accesses) and one after (their acquire precedes
// the copies' later ones).
// CHECK-LABEL: func.func @unused_acq_rel
// CHECK-SAME: tile.shared_memory = 0 : i64
// CHECK: nvvm.barrier0
// CHECK: atom.acq_rel.gpu.global.add.u32
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK: return
func.func @unused_acq_rel(%c: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %one = arith.constant dense<1> : !tile.tile<16xi32>
  %z = arith.constant dense<0> : !tile.tile<16xi32>
  %old = tile.atomic_rmw add %one, %c[%z] : !tile.tile<16xi32>, !tile.tensor<?xi32>, !tile.tile<16xi32>
  return
}

// -----

// An acquire that a TMA store may follow (tgpu.async_proxy_fence, set by
// tile-tma-store-epilogue) fences the async proxy's global accesses after
// its barrier, in every thread; without the attribute, no fence.
// CHECK-LABEL: func.func @acquire_before_bulk_copies
// CHECK: atom.acquire.gpu.global.add.u32
// CHECK: nvvm.barrier0
// CHECK: fence.proxy.async.global;
// CHECK: atom.acquire.gpu.global.add.u32
// CHECK: nvvm.barrier0
// CHECK-NOT: fence.proxy.async.global
// CHECK: return
func.func @acquire_before_bulk_copies(%c: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %one = arith.constant dense<1> : !tile.tile<16xi32>
  %z = arith.constant dense<0> : !tile.tile<16xi32>
  %a = tile.atomic_rmw add %one, %c[%z] sem acquire {tgpu.async_proxy_fence} : !tile.tile<16xi32>, !tile.tensor<?xi32>, !tile.tile<16xi32>
  %b = tile.atomic_rmw add %one, %c[%z] sem acquire : !tile.tile<16xi32>, !tile.tensor<?xi32>, !tile.tile<16xi32>
  return
}

// -----

// A scan over 1,024 elements in 4 warps: coordinate bits 0-1 and 9 are
// registers, 2-6 lanes (a butterfly shuffle each, once a distinct block
// total: 2 a step), 7-8 warps (through the scratch area, 4 KiB, two
// barriers a step).
// CHECK-LABEL: func.func @scan_warps
// CHECK-SAME: tile.shared_memory = 4096 : i64
// CHECK-COUNT-10: shfl.sync.bfly.b32
// CHECK-NOT: shfl.sync.bfly.b32
// CHECK-COUNT-4: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @scan_warps(%x: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<1024xf32>
  %s = tile.scan sum %t dim 0 : !tile.tile<1024xf32>
  tile.store %s, %x[%c0] : !tile.tile<1024xf32>, !tile.tensor<?xf32>
  return
}

// -----

// A user's combiner is cloned at each join, the earlier part first.
// CHECK-LABEL: func.func @scan_region
// CHECK: arith.subf
// CHECK-NOT: tile.yield
func.func @scan_region(%x: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<32xf32>
  %s = tile.scan %t dim 0 combine {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %b, %a : f32
    tile.yield %d : f32
  } : !tile.tile<32xf32>
  tile.store %s, %x[%c0] : !tile.tile<32xf32>, !tile.tensor<?xf32>
  return
}

// -----

// A bitonic sort of 64 keys in one warp: compare-exchanges on signed
// compares, no shared memory.
// CHECK-LABEL: func.func @sort_lanes
// CHECK-SAME: tile.shared_memory = 0 : i64
// CHECK: arith.cmpi slt
// CHECK: shfl.sync.bfly.b32
// CHECK: arith.select
func.func @sort_lanes(%x: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xi32> -> !tile.tile<64xi32>
  %s = tile.sort %t dim 0 descending : !tile.tile<64xi32>
  tile.store %s, %x[%c0] : !tile.tile<64xi32>, !tile.tensor<?xi32>
  return
}

// -----

// Top-2 of 128: the result keeps two registers of the operand's four
// (truncateDim: lanes hold copies), one two-element store (the
// one-element ones are for a ragged end).
// CHECK-LABEL: func.func @topk
// CHECK: arith.cmpf olt
// CHECK: st.global.v2.b32
// CHECK: return
func.func @topk(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %s = tile.topk %t dim 0 k 2 : !tile.tile<128xf32> -> !tile.tile<2xf32>
  tile.store %s, %y[%c0] : !tile.tile<2xf32>, !tile.tensor<?xf32>
  return
}

// -----

// Print: a format string a line ('%' escaped), vprintf under an scf.if on
// the program; an f32 is passed as f64.
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("pid (%d, %d, %d) t%% arg0[%d] = %.9g\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("pid (%d, %d, %d) t%% arg1 = %d\0A\00")
// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: func.func @print
// CHECK: scf.if
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: llvm.call @vprintf
func.func @print(%x: !tile.tensor<?xf32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<32xf32>
  tile.print "t%" %t, %n program [0, 0, 1] always : !tile.tile<32xf32>, i32
  return
}

// -----

// Print of an index: passed as i64 with %lld (it reached llvm.store as
// 'index' and failed inside the lowering).
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("pid (%d, %d, %d) i = %lld\0A\00")
// CHECK-LABEL: func.func @print_index
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: llvm.call @vprintf
func.func @print_index(%n: i32)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  %i = arith.index_cast %n : i32 to index
  tile.print "i" %i : index
  return
}

// -----

// Assert: the message with the source line, then __assertfail.
// CHECK-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
// CHECK-DAG: ("{{.*}}convert-tile-to-llvm.mlir:{{[0-9]+}}: pid (%d, %d, %d): assertion failed: c holds\0A\00")
// CHECK-LABEL: func.func @assert
// CHECK: scf.if
// CHECK: llvm.call @vprintf
// CHECK: llvm.call @__assertfail
func.func @assert(%c: i1)
    attributes {tile.kernel, tile.num_warps = 1, tile.grid = #tile.grid<1>} {
  tile.assert %c, "c holds" always : i1
  return
}

// -----

// Blocks that are whole registers lower to nothing (the row blocks and
// their concat); a block of columns whose high bit is a lane bit moves
// through the tile's row-major copy in shared memory: the tile stored with
// 16-byte vectors, the block loaded from 64 elements in. An unaligned
// block (offset 5 along the columns) is loaded an element at a time.
// CHECK-LABEL: func.func @blocks
// CHECK-SAME: tile.shared_memory = 16384
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[C64]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-COUNT-4: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[C5:.*]] = arith.constant 5 : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[C5]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK-NOT: nvvm.barrier0
func.func @blocks(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>, %i: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %t = tile.load %x[%i, %i] : !tile.tensor<?x?xf32> -> !tile.tile<32x128xf32>
  %top = tile.extract_slice %t [0, 0] : !tile.tile<32x128xf32> -> !tile.tile<16x128xf32>
  %bot = tile.extract_slice %t [16, 0] : !tile.tile<32x128xf32> -> !tile.tile<16x128xf32>
  %cat = tile.concat %bot, %top dim 0 : !tile.tile<16x128xf32>, !tile.tile<16x128xf32> -> !tile.tile<32x128xf32>
  %cols = tile.extract_slice %cat [0, 64] : !tile.tile<32x128xf32> -> !tile.tile<32x64xf32>
  %odd = tile.extract_slice %cat [0, 5] : !tile.tile<32x128xf32> -> !tile.tile<32x64xf32>
  %sum = arith.addf %cols, %odd : !tile.tile<32x64xf32>
  tile.store %sum, %y[%i, %i] : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

// A reducing store adds each element once with red.global.add: 16-byte
// vectors under the uniform check, one element at a time otherwise; a
// value held in copies (a splat) is added by its owners alone. A tile
// wholly inside the view (a uniform check first) adds with no element
// checks (predicate 1), else each element under its bounds check.
// CHECK-LABEL: func.func @store_reduce
// CHECK: scf.if
// CHECK: scf.if
// CHECK-COUNT-2: red.relaxed.gpu.global.add.v4.f32 [$1], {$2, $3, $4, $5};\0A}", "r,l,f,f,f,f" %c1_i32
// CHECK: } else {
// CHECK-COUNT-8: red.relaxed.gpu.global.add.f32 [$1], $2;\0A}", "r,l,f" %c1_i32
// CHECK: } else {
// CHECK: scf.if
// CHECK-COUNT-2: red.relaxed.gpu.global.add.v4.f32 [$1], {$2, $3, $4, $5};\0A}", "r,l,f,f,f,f" %{{[0-9]+}}
// CHECK: } else {
// CHECK-COUNT-8: red.relaxed.gpu.global.add.f32
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: red.relaxed.gpu.global.add.v4.f32
func.func @store_reduce(%t: !tile.tensor<?x?xf32>, %s: f32)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %v = tile.load %t[%c0, %c0] : !tile.tensor<?x?xf32> -> !tile.tile<16x64xf32>
  tile.store %v, %t[%c0, %c0] reduce add : !tile.tile<16x64xf32>, !tile.tensor<?x?xf32>
  %b = tile.splat %s : f32 -> !tile.tile<4x4xf32>
  tile.store %b, %t[%c0, %c0] reduce add : !tile.tile<4x4xf32>, !tile.tensor<?x?xf32>
  return
}
