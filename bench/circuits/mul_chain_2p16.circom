pragma circom 2.0.0;

// Benchmark circuit: a multiplication chain whose snarkjs domain is exactly
// 2^16.  Each row is  c[i] = c[i-1] * (c[i-1] + in) + i  (one private input,
// one public output), as in tests/fixtures/circuits/mul_chain.circom.
//
// nConstraints = N, nPublic = 1, nVars = N + 2.  snarkjs picks the domain as
// the smallest power of two strictly greater than nConstraints + nPublic, so
// N = 2^16 - 3 = 65533 gives a domain of exactly 2^16.
template MulChain(N) {
    signal input in;
    signal output out;

    signal c[N];
    c[0] <== in * in;
    for (var i = 1; i < N; i++) {
        c[i] <== c[i-1] * (c[i-1] + in) + i;
    }
    out <== c[N-1];
}

component main = MulChain(65533);
