// RUN: tilec-opt %s -split-input-file -tile-strip-debug-ops | FileCheck %s

// Without tile.debug: prints and asserts go, unless marked `always`.
// CHECK-LABEL: func.func @release
// CHECK-NOT: tile.print "dropped"
// CHECK-NOT: tile.assert %{{.*}}, "dropped"
// CHECK: tile.print "kept" always
// CHECK: tile.assert %{{.*}}, "kept" always
func.func @release(%c: i1, %n: i32) {
  tile.print "dropped" %n : i32
  tile.assert %c, "dropped" : i1
  tile.print "kept" always
  tile.assert %c, "kept" always : i1
  return
}

// -----

// With tile.debug (tilec compile --debug): everything stays.
// CHECK-LABEL: func.func @debug
// CHECK: tile.print "a" %{{.*}} : i32
// CHECK: tile.assert %{{.*}}, "b" : i1
module attributes {tile.debug} {
  func.func @debug(%c: i1, %n: i32) {
    tile.print "a" %n : i32
    tile.assert %c, "b" : i1
    return
  }
}

// -----

// Profile scopes stay only in kernels with tile.profile (tilec compile
// --profile), whatever tile.debug says.
// CHECK-LABEL: func.func @unprofiled
// CHECK-NOT: tile.profile_
// CHECK: return
// CHECK-LABEL: func.func @profiled
// CHECK: tile.profile_begin "s"(%{{.*}})
// CHECK: tile.profile_end "s"
module attributes {tile.debug} {
  func.func @unprofiled(%n: i32) {
    tile.profile_begin "s"(%n)
    tile.profile_end "s"
    return
  }
  func.func @profiled(%n: i32) attributes {tile.profile} {
    tile.profile_begin "s"(%n)
    tile.profile_end "s"
    return
  }
}
