// Kernels for test/gpu/test_memory.py: gather, scatter and atomics.

// out[i, :] = table[ids[i], :]; rows past the table (or negative ids) read
// as -1. 32 rows x 64 columns a program.
func.func @gather_rows(%table: !tile.tensor<?x?xf32>, %ids: !tile.tensor<?xi32>,
                       %out: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(1, 0), 32), cdiv(dim(0, 1), 64)>} {
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %px = tile.program_id x
  %py = tile.program_id y
  %r0 = arith.muli %px, %c32 : i32
  %c0 = arith.muli %py, %c64 : i32
  %id = tile.load %ids[%r0] : !tile.tensor<?xi32> -> !tile.tile<32xi32>
  %id2 = tile.expand_dims %id axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %rows = tile.broadcast %id2 : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %iota = tile.iota : !tile.tile<64xi32>
  %c0t = tile.splat %c0 : i32 -> !tile.tile<64xi32>
  %col = arith.addi %iota, %c0t : !tile.tile<64xi32>
  %col2 = tile.expand_dims %col axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %cols = tile.broadcast %col2 : !tile.tile<1x64xi32> -> !tile.tile<32x64xi32>
  %g = tile.gather %table[%rows, %cols] {padding = -1.0 : f32}
      : !tile.tensor<?x?xf32>, !tile.tile<32x64xi32>, !tile.tile<32x64xi32> -> !tile.tile<32x64xf32>
  tile.store %g, %out[%r0, %c0] : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>
  return
}

// out[ids[i], :] = x[i, :] for the rows i < n (ids distinct): the row
// scatter of an embedding update, by vectors where the view allows.
func.func @scatter_rows(%x: !tile.tensor<?x?xf32>, %ids: !tile.tensor<?xi32>,
                        %out: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 32), cdiv(dim(0, 1), 64)>} {
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %px = tile.program_id x
  %py = tile.program_id y
  %r0 = arith.muli %px, %c32 : i32
  %c0 = arith.muli %py, %c64 : i32
  %n = tile.dim %x, 0 : !tile.tensor<?x?xf32>
  %v = tile.load %x[%r0, %c0] : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
  %id = tile.load %ids[%r0] : !tile.tensor<?xi32> -> !tile.tile<32xi32>
  %id2 = tile.expand_dims %id axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %rows = tile.broadcast %id2 : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %ri = tile.iota : !tile.tile<32xi32>
  %r0t = tile.splat %r0 : i32 -> !tile.tile<32xi32>
  %r = arith.addi %ri, %r0t : !tile.tile<32xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<32xi32>
  %in = arith.cmpi slt, %r, %nt : !tile.tile<32xi32>
  %in2 = tile.expand_dims %in axis 1 : !tile.tile<32xi1> -> !tile.tile<32x1xi1>
  %mask = tile.broadcast %in2 : !tile.tile<32x1xi1> -> !tile.tile<32x64xi1>
  %iota = tile.iota : !tile.tile<64xi32>
  %c0t = tile.splat %c0 : i32 -> !tile.tile<64xi32>
  %col = arith.addi %iota, %c0t : !tile.tile<64xi32>
  %col2 = tile.expand_dims %col axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %cols = tile.broadcast %col2 : !tile.tile<1x64xi32> -> !tile.tile<32x64xi32>
  tile.scatter %v, %out[%rows, %cols] mask(%mask : !tile.tile<32x64xi1>)
      : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>, !tile.tile<32x64xi32>, !tile.tile<32x64xi32>
  return
}

// out[perm[i]] = x[i] where x[i] > 0; other elements of out are kept.
func.func @scatter_positive(%x: !tile.tensor<?xf32>, %perm: !tile.tensor<?xi32>,
                            %out: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 256)>} {
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c256 : i32
  %v = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %p = tile.load %perm[%off] {padding = -1 : i32} : !tile.tensor<?xi32> -> !tile.tile<256xi32>
  %zero = arith.constant dense<0.0> : !tile.tile<256xf32>
  %pos = arith.cmpf ogt, %v, %zero : !tile.tile<256xf32>
  tile.scatter %v, %out[%p] mask(%pos : !tile.tile<256xi1>)
      : !tile.tile<256xf32>, !tile.tensor<?xf32>, !tile.tile<256xi32>
  return
}

// bins[keys[i]] += 1 for the keys in range (the old values unused: red).
func.func @histogram(%keys: !tile.tensor<?xi32>, %bins: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 512)>} {
  %c512 = arith.constant 512 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c512 : i32
  %k = tile.load %keys[%off] {padding = -1 : i32} : !tile.tensor<?xi32> -> !tile.tile<512xi32>
  %one = arith.constant dense<1> : !tile.tile<512xi32>
  %old = tile.atomic_rmw add %one, %bins[%k] sem relaxed
      : !tile.tile<512xi32>, !tile.tensor<?xi32>, !tile.tile<512xi32>
  return
}

// 16 elements a program in a 4-warp kernel (each element held by 8
// threads): every element takes a ticket, old[i] = counter++, so the
// tickets are 0 .. n-1 once each.
func.func @tickets(%counter: !tile.tensor<?xi32>, %old: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<cdiv(dim(1, 0), 16)>} {
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c16 : i32
  %n = tile.dim %old, 0 : !tile.tensor<?xi32>
  %iota = tile.iota : !tile.tile<16xi32>
  %offt = tile.splat %off : i32 -> !tile.tile<16xi32>
  %i = arith.addi %iota, %offt : !tile.tile<16xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<16xi32>
  %in = arith.cmpi slt, %i, %nt : !tile.tile<16xi32>
  %zero = arith.constant dense<0> : !tile.tile<16xi32>
  %one = arith.constant dense<1> : !tile.tile<16xi32>
  %t = tile.atomic_rmw add %one, %counter[%zero] mask(%in : !tile.tile<16xi1>)
      : !tile.tile<16xi32>, !tile.tensor<?xi32>, !tile.tile<16xi32>
  tile.store %t, %old[%off] : !tile.tile<16xi32>, !tile.tensor<?xi32>
  return
}

// table[idx[i]] = op(table[idx[i]], x[i]) for each op, the old values to
// old_*; f32 add, max and min, bf16 add, i32 max, umin, and, or, xor, xchg.
func.func @rmw_f32(%x: !tile.tensor<?xf32>, %idx: !tile.tensor<?xi32>,
                   %add: !tile.tensor<?xf32>, %max: !tile.tensor<?xf32>,
                   %min: !tile.tensor<?xf32>, %xchg: !tile.tensor<?xf32>,
                   %old_max: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 256)>} {
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c256 : i32
  %v = tile.load %x[%off] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %i = tile.load %idx[%off] {padding = -1 : i32} : !tile.tensor<?xi32> -> !tile.tile<256xi32>
  %a = tile.atomic_rmw add %v, %add[%i] sem relaxed : !tile.tile<256xf32>, !tile.tensor<?xf32>, !tile.tile<256xi32>
  %m = tile.atomic_rmw max %v, %max[%i] : !tile.tile<256xf32>, !tile.tensor<?xf32>, !tile.tile<256xi32>
  tile.store %m, %old_max[%off] : !tile.tile<256xf32>, !tile.tensor<?xf32>
  %n = tile.atomic_rmw min %v, %min[%i] sem relaxed : !tile.tile<256xf32>, !tile.tensor<?xf32>, !tile.tile<256xi32>
  %e = tile.atomic_rmw xchg %v, %xchg[%i] : !tile.tile<256xf32>, !tile.tensor<?xf32>, !tile.tile<256xi32>
  return
}

func.func @rmw_bf16(%x: !tile.tensor<?xbf16>, %idx: !tile.tensor<?xi32>, %add: !tile.tensor<?xbf16>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 256)>} {
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c256 : i32
  %v = tile.load %x[%off] : !tile.tensor<?xbf16> -> !tile.tile<256xbf16>
  %i = tile.load %idx[%off] {padding = -1 : i32} : !tile.tensor<?xi32> -> !tile.tile<256xi32>
  %a = tile.atomic_rmw add %v, %add[%i] sem relaxed : !tile.tile<256xbf16>, !tile.tensor<?xbf16>, !tile.tile<256xi32>
  return
}

func.func @rmw_i32(%x: !tile.tensor<?xi32>, %idx: !tile.tensor<?xi32>,
                   %max: !tile.tensor<?xi32>, %umin: !tile.tensor<?xi32>,
                   %and: !tile.tensor<?xi32>, %or: !tile.tensor<?xi32>,
                   %xor: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 256)>} {
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c256 : i32
  %v = tile.load %x[%off] : !tile.tensor<?xi32> -> !tile.tile<256xi32>
  %i = tile.load %idx[%off] {padding = -1 : i32} : !tile.tensor<?xi32> -> !tile.tile<256xi32>
  %a = tile.atomic_rmw max %v, %max[%i] sem relaxed : !tile.tile<256xi32>, !tile.tensor<?xi32>, !tile.tile<256xi32>
  %b = tile.atomic_rmw umin %v, %umin[%i] sem relaxed : !tile.tile<256xi32>, !tile.tensor<?xi32>, !tile.tile<256xi32>
  %c = tile.atomic_rmw and %v, %and[%i] sem relaxed : !tile.tile<256xi32>, !tile.tensor<?xi32>, !tile.tile<256xi32>
  %d = tile.atomic_rmw or %v, %or[%i] sem relaxed : !tile.tile<256xi32>, !tile.tensor<?xi32>, !tile.tile<256xi32>
  %e = tile.atomic_rmw xor %v, %xor[%i] sem relaxed : !tile.tile<256xi32>, !tile.tensor<?xi32>, !tile.tile<256xi32>
  return
}

// Each element i tries to claim slot[i % slots] (0 -> i + 1); won[i] is
// the old value (0 for the one winner of each slot).
func.func @claim(%slot: !tile.tensor<?xi32>, %won: !tile.tensor<?xi32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(1, 0), 128)>} {
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c128 : i32
  %n = tile.dim %won, 0 : !tile.tensor<?xi32>
  %s = tile.dim %slot, 0 : !tile.tensor<?xi32>
  %iota = tile.iota : !tile.tile<128xi32>
  %offt = tile.splat %off : i32 -> !tile.tile<128xi32>
  %i = arith.addi %iota, %offt : !tile.tile<128xi32>
  %nt = tile.splat %n : i32 -> !tile.tile<128xi32>
  %in = arith.cmpi slt, %i, %nt : !tile.tile<128xi32>
  %st = tile.splat %s : i32 -> !tile.tile<128xi32>
  %which = arith.remsi %i, %st : !tile.tile<128xi32>
  %zero = arith.constant dense<0> : !tile.tile<128xi32>
  %one = arith.constant dense<1> : !tile.tile<128xi32>
  %mine = arith.addi %i, %one : !tile.tile<128xi32>
  %old = tile.atomic_cas %slot[%which], %zero, %mine mask(%in : !tile.tile<128xi1>)
      : !tile.tensor<?xi32>, !tile.tile<128xi32> -> !tile.tile<128xi32>
  tile.store %old, %won[%off] : !tile.tile<128xi32>, !tile.tensor<?xi32>
  return
}

// Masked load and store: y[i, j] = x[i, j] + 1 on and below the diagonal
// (j <= i); x's odd columns read as 7 (masked off); y above the diagonal
// is kept. 32 x 64 a program.
func.func @masked_tril(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 32), cdiv(dim(0, 1), 64)>} {
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %px = tile.program_id x
  %py = tile.program_id y
  %r0 = arith.muli %px, %c32 : i32
  %c0 = arith.muli %py, %c64 : i32
  %ri = tile.iota : !tile.tile<32xi32>
  %r0t = tile.splat %r0 : i32 -> !tile.tile<32xi32>
  %r = arith.addi %ri, %r0t : !tile.tile<32xi32>
  %r2 = tile.expand_dims %r axis 1 : !tile.tile<32xi32> -> !tile.tile<32x1xi32>
  %rows = tile.broadcast %r2 : !tile.tile<32x1xi32> -> !tile.tile<32x64xi32>
  %ci = tile.iota : !tile.tile<64xi32>
  %c0t = tile.splat %c0 : i32 -> !tile.tile<64xi32>
  %c = arith.addi %ci, %c0t : !tile.tile<64xi32>
  %c2 = tile.expand_dims %c axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
  %cols = tile.broadcast %c2 : !tile.tile<1x64xi32> -> !tile.tile<32x64xi32>
  %two = arith.constant dense<2> : !tile.tile<32x64xi32>
  %zero = arith.constant dense<0> : !tile.tile<32x64xi32>
  %par = arith.remsi %cols, %two : !tile.tile<32x64xi32>
  %even = arith.cmpi eq, %par, %zero : !tile.tile<32x64xi32>
  %t = tile.load %x[%r0, %c0] mask(%even : !tile.tile<32x64xi1>) {padding = 7.0 : f32}
      : !tile.tensor<?x?xf32> -> !tile.tile<32x64xf32>
  %one = arith.constant dense<1.0> : !tile.tile<32x64xf32>
  %s = arith.addf %t, %one : !tile.tile<32x64xf32>
  %low = arith.cmpi sle, %cols, %rows : !tile.tile<32x64xi32>
  tile.store %s, %y[%r0, %c0] mask(%low : !tile.tile<32x64xi1>) : !tile.tile<32x64xf32>, !tile.tensor<?x?xf32>
  return
}

// C = A · B with B's rows past k_valid masked off (read as zero): a GEMM
// whose B load has a mask keeps the plain path (no TMA) and stays right.
func.func @gemm_masked_k(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>,
                         %c: !tile.tensor<?x?xf32>, %k_valid: i32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 128), cdiv(dim(1, 1), 128)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %px = tile.program_id x
  %py = tile.program_id y
  %m0 = arith.muli %px, %c128 : i32
  %n0 = arith.muli %py, %c128 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %kv = tile.splat %k_valid : i32 -> !tile.tile<64x128xi32>
  %ki = tile.iota : !tile.tile<64xi32>
  %ki2 = tile.expand_dims %ki axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
  %kib = tile.broadcast %ki2 : !tile.tile<64x1xi32> -> !tile.tile<64x128xi32>
  %zero = arith.constant dense<0.0> : !tile.tile<128x128xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (!tile.tile<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<128x64xbf16>
    %k0t = tile.splat %k0 : i32 -> !tile.tile<64x128xi32>
    %krow = arith.addi %kib, %k0t : !tile.tile<64x128xi32>
    %ok = arith.cmpi slt, %krow, %kv : !tile.tile<64x128xi32>
    %tb = tile.load %b[%k0, %n0] mask(%ok : !tile.tile<64x128xi1>) : !tile.tensor<?x?xbf16> -> !tile.tile<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<128x64xbf16>, !tile.tile<64x128xbf16> -> !tile.tile<128x128xf32>
    scf.yield %d : !tile.tile<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<128x128xf32>, !tile.tensor<?x?xf32>
  return
}

// Philox4x32-10 words of counters (c0[i], c1[i], c2[i], c3[i]) under the
// key (k0, k1), to r (n x 4, row i the four words).
func.func @philox(%c0: !tile.tensor<?xi32>, %c1: !tile.tensor<?xi32>,
                  %c2: !tile.tensor<?xi32>, %c3: !tile.tensor<?xi32>,
                  %r: !tile.tensor<?x4xi32>, %k0: i32, %k1: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %c128 = arith.constant 128 : i32
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c128 : i32
  %a = tile.load %c0[%off] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %b = tile.load %c1[%off] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %c = tile.load %c2[%off] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %d = tile.load %c3[%off] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  %w:4 = tile.philox %a, %b, %c, %d key %k0, %k1 : !tile.tile<128xi32>
  %w0 = tile.reshape %w#0 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %w1 = tile.reshape %w#1 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %w2 = tile.reshape %w#2 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  %w3 = tile.reshape %w#3 : !tile.tile<128xi32> -> !tile.tile<128x1xi32>
  tile.store %w0, %r[%off, %z] : !tile.tile<128x1xi32>, !tile.tensor<?x4xi32>
  tile.store %w1, %r[%off, %one] : !tile.tile<128x1xi32>, !tile.tensor<?x4xi32>
  tile.store %w2, %r[%off, %two] : !tile.tile<128x1xi32>, !tile.tensor<?x4xi32>
  tile.store %w3, %r[%off, %three] : !tile.tile<128x1xi32>, !tile.tensor<?x4xi32>
  return
}

// u[i] and z[i]: uniform and normal numbers at offset base + i.
func.func @rand(%u: !tile.tensor<?xf32>, %z: !tile.tensor<?xf32>, %base: i32,
                %k0: i32, %k1: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 1024)>} {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c1024 : i32
  %start = arith.addi %off, %base : i32
  %iota = tile.iota : !tile.tile<1024xi32>
  %s = tile.splat %start : i32 -> !tile.tile<1024xi32>
  %offs = arith.addi %iota, %s : !tile.tile<1024xi32>
  %un = tile.rand uniform %offs key %k0, %k1 : !tile.tile<1024xi32> -> !tile.tile<1024xf32>
  %nr = tile.rand normal %offs key %k0, %k1 : !tile.tile<1024xi32> -> !tile.tile<1024xf32>
  tile.store %un, %u[%off] : !tile.tile<1024xf32>, !tile.tensor<?xf32>
  tile.store %nr, %z[%off] : !tile.tile<1024xf32>, !tile.tensor<?xf32>
  return
}

// Split-K by atomics written as a user writes them: each program adds its
// 64x64 block of A (at its row block, every column block in turn) into C
// with an atomic add of a box of rows and columns, which canonicalization
// makes a reducing store (red.global.add, f32 vectors), plus a splat of s
// into C's 4x4 corner (a layout of copies: each element is added once).
func.func @reduce_box(%a: !tile.tensor<?x?xf32>, %c: !tile.tensor<?x?xf32>, %s: f32)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c64 : i32
  %n = tile.dim %a, 1 : !tile.tensor<?x?xf32>
  %ri = tile.iota : !tile.tile<64xi32>
  %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
  %r = arith.addi %ri, %m0t : !tile.tile<64xi32>
  %r2 = tile.expand_dims %r axis 1 : !tile.tile<64xi32> -> !tile.tile<64x1xi32>
  %rows = tile.broadcast %r2 : !tile.tile<64x1xi32> -> !tile.tile<64x64xi32>
  scf.for %n0 = %c0 to %n step %c64 : i32 {
    %t = tile.load %a[%m0, %n0] : !tile.tensor<?x?xf32> -> !tile.tile<64x64xf32>
    %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
    %col = arith.addi %ri, %n0t : !tile.tile<64xi32>
    %c2 = tile.expand_dims %col axis 0 : !tile.tile<64xi32> -> !tile.tile<1x64xi32>
    %cols = tile.broadcast %c2 : !tile.tile<1x64xi32> -> !tile.tile<64x64xi32>
    %old = tile.atomic_rmw add %t, %c[%rows, %cols] sem relaxed
        : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>, !tile.tile<64x64xi32>, !tile.tile<64x64xi32>
  }
  %st = tile.splat %s : f32 -> !tile.tile<4x4xf32>
  %z = arith.constant dense<0> : !tile.tile<4x4xi32>
  %i4 = tile.iota : !tile.tile<4xi32>
  %i40 = tile.expand_dims %i4 axis 1 : !tile.tile<4xi32> -> !tile.tile<4x1xi32>
  %r4 = tile.broadcast %i40 : !tile.tile<4x1xi32> -> !tile.tile<4x4xi32>
  %i41 = tile.expand_dims %i4 axis 0 : !tile.tile<4xi32> -> !tile.tile<1x4xi32>
  %c4 = tile.broadcast %i41 : !tile.tile<1x4xi32> -> !tile.tile<4x4xi32>
  %old2 = tile.atomic_rmw add %st, %c[%r4, %c4] sem relaxed
      : !tile.tile<4x4xf32>, !tile.tensor<?x?xf32>, !tile.tile<4x4xi32>, !tile.tile<4x4xi32>
  return
}
