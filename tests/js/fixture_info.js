#!/usr/bin/env node
// fixture_info.js — print the parameters of circom/snarkjs binary files as JSON.
//
//   node fixture_info.js r1cs FILE.r1cs      -> header counts, section order,
//                                               rows with empty A/B, domain snarkjs will pick
//   node fixture_info.js zkey FILE.zkey      -> Groth16 header counts, section order,
//                                               number of points at infinity per section
//   node fixture_info.js wtns FILE.wtns      -> nWitness, section order
//   node fixture_info.js fixture DIR         -> all three for DIR/circuit.{r1cs,zkey} and
//                                               DIR/witness.wtns, cross-checked
//
// Plain Node (no dependencies). Used by ../fixtures/make_fixtures.sh to choose
// the powers-of-tau size, to check the fixtures and to write fixtures.json.
"use strict";
const fs = require("fs");
const path = require("path");

function container(file, magic) {
    const b = fs.readFileSync(file);
    const m = b.toString("latin1", 0, 4);
    if (m !== magic) throw new Error(`${file}: magic "${m}", expected "${magic}"`);
    const nSections = b.readUInt32LE(8);
    const order = [];
    const sec = {};
    let p = 12;
    for (let i = 0; i < nSections; i++) {
        const id = b.readUInt32LE(p);
        const size = Number(b.readBigUInt64LE(p + 4));
        p += 12;
        order.push(id);
        if (sec[id]) throw new Error(`${file}: section ${id} appears twice`);
        sec[id] = { pos: p, size };
        p += size;
    }
    if (p !== b.length) throw new Error(`${file}: sections end at ${p}, file has ${b.length} bytes`);
    return { b, version: b.readUInt32LE(4), order, sec, bytes: b.length };
}

function r1csInfo(file) {
    const { b, version, order, sec, bytes } = container(file, "r1cs");
    let o = sec[1].pos;
    const n8 = b.readUInt32LE(o); o += 4 + n8;
    const h = {};
    for (const k of ["nWires", "nPubOut", "nPubIn", "nPrvIn"]) { h[k] = b.readUInt32LE(o); o += 4; }
    h.nLabels = Number(b.readBigUInt64LE(o)); o += 8;
    h.nConstraints = b.readUInt32LE(o);
    // walk the constraints: count rows whose A and B are both empty (linear rows)
    let c = sec[2].pos;
    let emptyAB = 0, emptyA = 0, emptyB = 0, emptyC = 0;
    const lcLen = () => { const n = b.readUInt32LE(c); c += 4 + n * (4 + n8); return n; };
    for (let i = 0; i < h.nConstraints; i++) {
        const na = lcLen(), nb = lcLen(), nc = lcLen();
        if (na === 0) emptyA++;
        if (nb === 0) emptyB++;
        if (nc === 0) emptyC++;
        if (na === 0 && nb === 0) emptyAB++;
    }
    if (c !== sec[2].pos + sec[2].size) throw new Error(`${file}: constraint section size mismatch`);
    const nPublic = h.nPubOut + h.nPubIn;
    // zkey_new.js: domainSize = 2^(floor(log2(nConstraints + nPublic)) + 1)
    const domainLog = Math.floor(Math.log2(h.nConstraints + nPublic)) + 1;
    return {
        bytes, version, sectionOrder: order, n8, ...h, nPublic,
        rowsEmptyAB: emptyAB, rowsEmptyA: emptyA, rowsEmptyB: emptyB, rowsEmptyC: emptyC,
        domainLog, domainSize: 2 ** domainLog,
    };
}

function zeroPoints(b, s, pointSize) {
    if (!s) return null;
    let zeros = 0;
    for (let off = s.pos; off < s.pos + s.size; off += pointSize) {
        let z = true;
        for (let j = 0; j < pointSize; j++) if (b[off + j] !== 0) { z = false; break; }
        if (z) zeros++;
    }
    return zeros;
}

function zkeyInfo(file) {
    const { b, version, order, sec, bytes } = container(file, "zkey");
    const protocol = b.readUInt32LE(sec[1].pos);
    if (protocol !== 1) throw new Error(`${file}: protocol ${protocol}, not groth16`);
    let o = sec[2].pos;
    const n8q = b.readUInt32LE(o); o += 4 + n8q;
    const n8r = b.readUInt32LE(o); o += 4 + n8r;
    const nVars = b.readUInt32LE(o); o += 4;
    const nPublic = b.readUInt32LE(o); o += 4;
    const domainSize = b.readUInt32LE(o); o += 4;
    const g1 = 2 * n8q, g2 = 4 * n8q;
    const nCoef = b.readUInt32LE(sec[4].pos);
    const infinity = {
        IC: zeroPoints(b, sec[3], g1), A: zeroPoints(b, sec[5], g1), B1: zeroPoints(b, sec[6], g1),
        B2: zeroPoints(b, sec[7], g2), C: zeroPoints(b, sec[8], g1), H: zeroPoints(b, sec[9], g1),
    };
    const counts = {
        IC: sec[3].size / g1, A: sec[5].size / g1, B1: sec[6].size / g1,
        B2: sec[7].size / g2, C: sec[8].size / g1, H: sec[9].size / g1,
    };
    return { bytes, version, sectionOrder: order, n8q, n8r, nVars, nPublic, domainSize, nCoef, points: counts, infinity };
}

function wtnsInfo(file) {
    const { b, version, order, sec, bytes } = container(file, "wtns");
    const n8 = b.readUInt32LE(sec[1].pos);
    const nWitness = b.readUInt32LE(sec[1].pos + 4 + n8);
    return { bytes, version, sectionOrder: order, n8, nWitness };
}

function fixtureInfo(dir) {
    const r1cs = r1csInfo(path.join(dir, "circuit.r1cs"));
    const zkey = zkeyInfo(path.join(dir, "circuit.zkey"));
    const wtns = wtnsInfo(path.join(dir, "witness.wtns"));
    const vk = JSON.parse(fs.readFileSync(path.join(dir, "verification_key.json"), "utf8"));
    const pub = JSON.parse(fs.readFileSync(path.join(dir, "public.json"), "utf8"));
    const errs = [];
    if (zkey.nVars !== r1cs.nWires) errs.push(`zkey nVars ${zkey.nVars} != r1cs nWires ${r1cs.nWires}`);
    if (zkey.nPublic !== r1cs.nPublic) errs.push(`zkey nPublic ${zkey.nPublic} != r1cs nPublic ${r1cs.nPublic}`);
    if (zkey.domainSize !== r1cs.domainSize) errs.push(`zkey domainSize ${zkey.domainSize} != expected ${r1cs.domainSize}`);
    if (wtns.nWitness !== zkey.nVars) errs.push(`wtns nWitness ${wtns.nWitness} != zkey nVars ${zkey.nVars}`);
    if (vk.nPublic !== zkey.nPublic) errs.push(`vkey nPublic ${vk.nPublic} != zkey nPublic ${zkey.nPublic}`);
    if (pub.length !== zkey.nPublic) errs.push(`public.json has ${pub.length} entries, nPublic ${zkey.nPublic}`);
    if (errs.length) throw new Error(`${dir}: ${errs.join("; ")}`);
    const files = {};
    for (const f of fs.readdirSync(dir).sort()) files[f] = fs.statSync(path.join(dir, f)).size;
    return {
        curve: vk.curve,
        nConstraints: r1cs.nConstraints, nVars: zkey.nVars, nPublic: zkey.nPublic,
        nPubOut: r1cs.nPubOut, nPubIn: r1cs.nPubIn, nPrvIn: r1cs.nPrvIn,
        domainSize: zkey.domainSize, nCoef: zkey.nCoef,
        r1csRowsEmptyAB: r1cs.rowsEmptyAB,
        r1csSectionOrder: r1cs.sectionOrder, zkeySectionOrder: zkey.sectionOrder, wtnsSectionOrder: wtns.sectionOrder,
        zkeyInfinityPoints: zkey.infinity,
        files,
    };
}

const [kind, file] = process.argv.slice(2);
const fn = { r1cs: r1csInfo, zkey: zkeyInfo, wtns: wtnsInfo, fixture: fixtureInfo }[kind];
if (!fn || !file) {
    console.error("usage: node fixture_info.js r1cs|zkey|wtns|fixture FILE_OR_DIR");
    process.exit(2);
}
try {
    console.log(JSON.stringify(fn(file)));
} catch (e) {
    console.error(`fixture_info: ${e.message}`);
    process.exit(1);
}
