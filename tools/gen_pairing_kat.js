#!/usr/bin/env node
// Known-answer values for tests/test_pairing.c, computed by ffjavascript
// (the pairing of snarkjs; vk_alphabeta_12 in a verification key is
// curve.pairing(alpha, beta)). Prints, per curve, as decimal strings in
// snarkjs's Gt layout [[c00, c01, c02], [c10, c11, c12]] (each an Fq2 pair):
//   pairing   e(G1, G2) = curve.pairing(G1.g, G2.g)
//   pairing_ab e([A]G1, [B]G2) with the A, B below
//   exact     the Miller loop value raised to (p^12 - 1)/r with
//             _finalExponentiationOld (the plain reduced pairing), which
//             differs from `pairing` by a fixed power (see ec/pairing.h)
// Run: NODE_PATH=tests/js/node_modules node tools/gen_pairing_kat.js
const {buildBn128, buildBls12381} = require('ffjavascript');

const A = 0x1234567890abcdef1234567890abcdefn;
const B = 0xfedcba0987654321fedcba0987654321n;

function flat(c, e) {
  const o = c.Gt.toObject(e);
  const out = [];
  for (const h of o) for (const f2 of h) for (const x of f2) out.push(x.toString());
  return out;
}

async function run(name, build) {
  const c = await build(true);
  const g1 = c.G1.g, g2 = c.G2.g;
  const e = c.pairing(g1, g2);
  const eab = c.pairing(c.G1.timesFr(g1, c.Fr.e(A)), c.G2.timesFr(g2, c.Fr.e(B)));
  const tm = c.tm;
  tm.startSyncOp();
  const pA = tm.allocBuff(c.G1.toJacobian(g1));
  const pB = tm.allocBuff(c.G2.toJacobian(g2));
  const pP = tm.alloc(c.prePSize), pQ = tm.alloc(c.preQSize);
  const pM = tm.alloc(c.Gt.n8), pR = tm.alloc(c.Gt.n8);
  tm.instance.exports[c.name + '_prepareG1'](pA, pP);
  tm.instance.exports[c.name + '_prepareG2'](pB, pQ);
  tm.instance.exports[c.name + '_millerLoop'](pP, pQ, pM);
  tm.instance.exports[c.name + '_finalExponentiationOld'](pM, pR);
  const exact = tm.getBuff(pR, c.Gt.n8);
  tm.endSyncOp();
  for (const [k, v] of [['pairing', e], ['pairing_ab', eab], ['exact', exact]]) {
    console.log(`/* ${name} ${k} */`);
    console.log('{' + flat(c, v).map((s) => `"${s}"`).join(',\n ') + '}');
  }
  await c.terminate();
}

(async () => {
  console.log(`/* A = 0x${A.toString(16)}, B = 0x${B.toString(16)} */`);
  await run('bn254', buildBn128);
  await run('bls12_381', buildBls12381);
})();
