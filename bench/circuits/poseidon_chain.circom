pragma circom 2.0.0;

// Benchmark circuit: a chain of K circomlib Poseidon(2) hashes,
//   h[0] = Poseidon(a, b),  h[i] = Poseidon(h[i-1], b)  for 0 < i < K,
// with private inputs a, b and the last hash as the one public output.  A
// more realistic constraint mix than the multiplication chain: x^5 S-boxes,
// dense linear layers (MDS) folded into the A/B/C rows by circom --O2.
//
// K = 273: 273 x 240 = 65520 constraints (circom --O2), so nConstraints +
// nPublic = 65521 < 2^16 and the snarkjs domain (the smallest power of two
// strictly greater) is exactly 2^16; bench/snarkjs_compare.sh checks it.
include "circomlib/circuits/poseidon.circom";

template PoseidonChain(K) {
    signal input a;
    signal input b;
    signal output out;

    component h[K];
    for (var i = 0; i < K; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== i == 0 ? a : h[i-1].out;
        h[i].inputs[1] <== b;
    }
    out <== h[K-1].out;
}

component main = PoseidonChain(273);
