/*
 * Pairing tests, both curves (the per-curve body below is included twice,
 * once per curve, with TP = cz_bls12_381 / cz_bn254).
 *
 * Known answers (tools/gen_pairing_kat.js prints them from ffjavascript
 * 0.3.1, the library behind snarkjs):
 *   PAIRING     e(G1, G2) as snarkjs's curve.pairing returns it, i.e. the
 *               convention of vk_alphabeta_12. The same values are published
 *               elsewhere: BLS12-381's is the e(G1, G2) of the zkcrypto
 *               `pairing` crate tests; BN254's appears in arkworks-based outputs.
 *   PAIRING_AB  e([A]G1, [B]G2) for the fixed A, B below (non-generator points).
 *   EXACT       the plain reduced pairing f^((p^12 - 1)/r) of (G1, G2)
 *               (ffjavascript's _finalExponentiationOld; for BN254 also the
 *               GT "generator" constant of several Go/Rust/Haskell libraries).
 * Checked: our e(G1, G2) = PAIRING, e([A]G1, [B]G2) = PAIRING_AB, our Miller
 * loop raised to (p^12 - 1)/r by plain pow() = EXACT, and EXACT^m = PAIRING
 * with m = 3 (BLS12-381) resp. 2x(6x^2 + 3x + 1) (BN254), gcd(m, r) = 1:
 * the fixed power documented in ec/pairing.h.
 *
 * Then on random points and scalars: bilinearity e(aP, bQ) = e(P, Q)^(ab)
 * = e(abP, Q) = e(P, abQ), additivity in each argument, non-degeneracy,
 * e^r = 1, e(-P, Q) = e(P, -Q) = e(P, Q)^-1, final_exp against
 * pow(f, m (p^12 - 1)/r) on random Fq12 elements, multi-pairing = product
 * of single pairings (and multi Miller loop = product of Miller loops) for
 * n = 0..11 with infinity points mixed in (more than one chunk of 8),
 * pairing_check on a valid relation e(aP, bQ) e(-abP, Q) = 1 and a
 * Groth16-shaped 4-pair equation, each failing once an input is perturbed,
 * infinity inputs giving 1, invalid arguments.
 */
#ifndef TP

#include <gmp.h>
#include <string.h>

#include "ec/pairing.h"
#include "test_util.h"

#define TP_A_HEX "1234567890abcdef1234567890abcdef"
#define TP_B_HEX "fedcba0987654321fedcba0987654321"

static const char *const KAT_BN254_PAIRING[12] = {
    "17264119758069723980713015158403419364912226240334615592005620718956030922389",
    "1300711225518851207585954685848229181392358478699795190245709208408267917898",
    "8894217292938489450175280157304813535227569267786222825147475294561798790624",
    "1829859855596098509359522796979920150769875799037311140071969971193843357227",
    "4968700049505451466697923764727215585075098085662966862137174841375779106779",
    "12814315002058128940449527172080950701976819591738376253772993495204862218736",
    "4233474252585134102088637248223601499779641130562251948384759786370563844606",
    "9420544134055737381096389798327244442442230840902787283326002357297404128074",
    "13457906610892676317612909831857663099224588803620954529514857102808143524905",
    "5122435115068592725432309312491733755581898052459744089947319066829791570839",
    "8891987925005301465158626530377582234132838601606565363865129986128301774627",
    "440796048150724096437130979851431985500142692666486515369083499585648077975",
};
static const char *const KAT_BN254_PAIRING_AB[12] = {
    "3560156330749311002540150060371087083989196163574780583080121481768666513156",
    "257669436417298452350604350547557079105037715878056165583186476219247631672",
    "13253402348263236243806070448593415219968170983638500682727276175083896371842",
    "12054693536723446062415940711100952004052005823174923308774931285793743006510",
    "8081890468945054869860471927153201355470299572018239980951816304235672405012",
    "20350798643538702557132097241907585863213229514218293679584919884421308757650",
    "21449079434578758797965042375443615567760918470355986413052703310401009666307",
    "20506340030462342186886338434250138609065190662267288882773457624778653296262",
    "19734827285225005383538622816774226113702360423427414357545313407503583303635",
    "936058919040593464131452589865467685696782138297299784722626228574320957414",
    "9202168330938672265009003941397565676694096692738700137989374575648954536491",
    "12769131351582131556091602854835558231299846701161400894493625603199068183892",
};
static const char *const KAT_BN254_EXACT[12] = {
    "8493334370784016972005089913588211327688223499729897951716206968320726508021",
    "3758435817766288188804561253838670030762970764366672594784247447067868088068",
    "6565798094314091391201231504228224566495939541538094766881371862976727043038",
    "14656606573936501743457633041048024656612227301473084805627390748872617280984",
    "634997487638609332803583491743335852620873788902390365055086820718589720118",
    "19455424343576886430889849773367397946457449073528455097210946839000147698372",
    "20049218015652006197026173611347504489508678646783216776320737476707192559881",
    "18059168546148152671857026372711724379319778306792011146784665080987064164612",
    "12145052038566888241256672223106590273978429515702193755778990643425246950730",
    "17918828665069491344039743589118342552553375221610735811112289083834142789347",
    "6223602427219597392892794664899549544171383137467762280768257680446283161705",
    "7484542354754424633621663080190936924481536615300815203692506276894207018007",
};
static const char *const KAT_BLS12_381_PAIRING[12] = {
    "2819105605953691245277803056322684086884703000473961065716485506033588504203831029066448642358042597501014294104502",
    "1323968232986996742571315206151405965104242542339680722164220900812303524334628370163366153839984196298685227734799",
    "2987335049721312504428602988447616328830341722376962214011674875969052835043875658579425548512925634040144704192135",
    "3879723582452552452538684314479081967502111497413076598816163759028842927668327542875108457755966417881797966271311",
    "261508182517997003171385743374653339186059518494239543139839025878870012614975302676296704930880982238308326681253",
    "231488992246460459663813598342448669854473942105054381511346786719005883340876032043606739070883099647773793170614",
    "3993582095516422658773669068931361134188738159766715576187490305611759126554796569868053818105850661142222948198557",
    "1074773511698422344502264006159859710502164045911412750831641680783012525555872467108249271286757399121183508900634",
    "2727588299083545686739024317998512740561167011046940249988557419323068809019137624943703910267790601287073339193943",
    "493643299814437640914745677854369670041080344349607504656543355799077485536288866009245028091988146107059514546594",
    "734401332196641441839439105942623141234148957972407782257355060229193854324927417865401895596108124443575283868655",
    "2348330098288556420918672502923664952620152483128593484301759394583320358354186482723629999370241674973832318248497",
};
static const char *const KAT_BLS12_381_PAIRING_AB[12] = {
    "2213518366118599728091385590644283987106709918669197165704980585855298832108083193192450543902391507822733333855953",
    "1918335371435854100318440884054813721697982520313996156126645774304015563993031404862831272220164324196962878622083",
    "1117466858582257411196729977513716216292365305222828642956187011794238218028101569326581135718501528514857009274701",
    "2907803741859387555061445804286359720512510901352800987700334113069322084821912475863592428327466341245113605651440",
    "3870134162420130949975862636691644514064302252859929441318326988218575455076058607598741160198365419821939395685067",
    "161673582851368052446137957698315762738973384847830064032511000864624413064329255436455076965658769341688977562632",
    "486341439153667948015030992122828732036417752545869050367198291928681089956065324656620961554717984047353499372059",
    "2675783533533089900854667231342867621456021859928708921944177955083945708543008113967013470507873604410841921284132",
    "1925986605563465074589741088736028686029425923933778864611009082210317434136600175909145158084925463192668050249001",
    "3327377512964501426496631090610279658853400397564803965671254936467669455039106090360550690811200964829743716536727",
    "3788554826025516638813709130958164160313667634976419768882343263145962419415680119466781968007844745798739299648829",
    "3006766880046420694463349706294469996015865764231693118756821254716491091459250506986439613815442630256443149702551",
};
static const char *const KAT_BLS12_381_EXACT[12] = {
    "2675223149320665921521646202693247640790817874364255298732398972560239127864099887300921329285059103920214926247256",
    "3268798540077874559188095304926415053902298079662269128631117894259354335713488241073281881110999874366368799440511",
    "1437178847597838002205538891928304392505606959215308674013885606166925907773842499174371404735625830937323828692626",
    "3520140447471844017044610248175793726488927385800919015247604269617056365166670232096113218155158979455637700602719",
    "1506178926806320088529997600140680210913802140271006315226533143967895395199677036726919792764738011159067846598728",
    "2626389147790168154036854297373352480470342009417426750876875476996308393122833154115295241935326582225976246741447",
    "296397698419227591881949966489408966385204245298227609919201225879400018157857419730816679383241778672627140748220",
    "1313697571675342986569886099636226306168713170654435514582366343380736958596157600562325204551377354604385651577455",
    "2213584337862344967755109385575965635901738814384224456257761298779336140589044234514789656471272705700109501099024",
    "2447141669618865772796042211991982778148438817099153092725275403399894819927527860344663177024354496855213527711198",
    "2549209626480291013679779981989983528616421847439035724344204595297044667359758911489614886787335613326952862534008",
    "3129088482270901242825355060993467433985308559466438813154852238956177342064351887308381291879994227300431734160957",
};

/* e as little-endian 64-bit limbs; returns the count */
static size_t mpz_to_u64s(uint64_t *out, size_t cap, const mpz_t e)
{
    size_t cnt = 0;
    CHECK(mpz_sizeinbase(e, 2) <= 64 * cap);
    memset(out, 0, cap * 8);
    mpz_export(out, &cnt, -1, 8, 0, 0, e);
    return cnt;
}

#define TP cz_bls12_381
#define TP_NAME "bls12_381"
#define TP_KAT_PAIRING KAT_BLS12_381_PAIRING
#define TP_KAT_PAIRING_AB KAT_BLS12_381_PAIRING_AB
#define TP_KAT_EXACT KAT_BLS12_381_EXACT
#define TP_BN 0
#include "test_pairing.c"
#undef TP
#undef TP_NAME
#undef TP_KAT_PAIRING
#undef TP_KAT_PAIRING_AB
#undef TP_KAT_EXACT
#undef TP_BN

#define TP cz_bn254
#define TP_NAME "bn254"
#define TP_KAT_PAIRING KAT_BN254_PAIRING
#define TP_KAT_PAIRING_AB KAT_BN254_PAIRING_AB
#define TP_KAT_EXACT KAT_BN254_EXACT
#define TP_BN 1
#include "test_pairing.c"
#undef TP
#undef TP_NAME
#undef TP_KAT_PAIRING
#undef TP_KAT_PAIRING_AB
#undef TP_KAT_EXACT
#undef TP_BN

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_pairing");
    cz_bls12_381_t_test_pairing(&rng);
    cz_bn254_t_test_pairing(&rng);
    return cz_test_finish("test_pairing");
}

#else /* per-curve body, TP = curve prefix */

#define TF(x) CZ_CAT(CZ_CAT(TP, _), x)
#define T_FQ CZ_CAT(TP, _fq)
#define T_FR CZ_CAT(TP, _fr)
#define T_F12 CZ_CAT(TP, _fq12)
#define T_G1 CZ_CAT(TP, _g1)
#define T_G2 CZ_CAT(TP, _g2)
#define T_G1A CZ_CAT(TP, _g1_affine)
#define T_G2A CZ_CAT(TP, _g2_affine)

typedef struct {
    mpz_t p, r, exact, m, m_exact;
} TF(t_ctx_t);

static void TF(t_f12_from_dec)(T_F12 *out, const char *const s[12])
{
    T_FQ *c = (T_FQ *)out; /* 12 Fq coefficients in snarkjs order */
    for (int i = 0; i < 12; i++) CHECK(TF(fq_from_dec)(&c[i], s[i], strlen(s[i])) == CZ_OK);
}

static void TF(t_f12_pow_mpz)(T_F12 *r, const T_F12 *a, const mpz_t e)
{
    uint64_t limbs[96];
    size_t n = mpz_to_u64s(limbs, 96, e);
    TF(fq12_pow)(r, a, limbs, n);
}

static void TF(t_g1_rand)(T_G1A *r, cz_rng *rng)
{
    T_G1 j;
    TF(g1_random)(&j, rng);
    TF(g1_to_affine)(r, &j);
}
static void TF(t_g2_rand)(T_G2A *r, cz_rng *rng)
{
    T_G2 j;
    TF(g2_random)(&j, rng);
    TF(g2_to_affine)(r, &j);
}
static void TF(t_g1_mul)(T_G1A *r, const T_G1A *p, const T_FR *k)
{
    T_G1 j;
    TF(g1_from_affine)(&j, p);
    TF(g1_mul_fr)(&j, &j, k);
    TF(g1_to_affine)(r, &j);
}
static void TF(t_g2_mul)(T_G2A *r, const T_G2A *p, const T_FR *k)
{
    T_G2 j;
    TF(g2_from_affine)(&j, p);
    TF(g2_mul_fr)(&j, &j, k);
    TF(g2_to_affine)(r, &j);
}
static T_F12 TF(t_e_)(const T_G1A *p, const T_G2A *q)
{
    T_F12 r;
    CHECK(TF(pairing)(&r, p, q) == CZ_OK);
    return r;
}
static void TF(t_fr_from_hex)(T_FR *r, const char *hex)
{
    mpz_t v;
    mpz_init_set_str(v, hex, 16);
    uint64_t l[4];
    mpz_to_u64s(l, 4, v);
    TF(fr_from_canonical)(r, l);
    mpz_clear(v);
}

static void TF(t_test_kat)(TF(t_ctx_t) *c)
{
    const T_G1A *g1 = TF(g1_generator)();
    const T_G2A *g2 = TF(g2_generator)();
    T_F12 want, got, f;
    TF(t_f12_from_dec)(&want, TP_KAT_PAIRING);
    got = TF(t_e_)(g1, g2);
    CHECK_MSG(TF(fq12_eq)(&got, &want), "%s: e(G1, G2) != ffjavascript's value", TP_NAME);
    /* non-generator points */
    T_FR a, b;
    T_G1A pa;
    T_G2A qb;
    TF(t_fr_from_hex)(&a, TP_A_HEX);
    TF(t_fr_from_hex)(&b, TP_B_HEX);
    TF(t_g1_mul)(&pa, g1, &a);
    TF(t_g2_mul)(&qb, g2, &b);
    TF(t_f12_from_dec)(&want, TP_KAT_PAIRING_AB);
    got = TF(t_e_)(&pa, &qb);
    CHECK_MSG(TF(fq12_eq)(&got, &want), "%s: e(A G1, B G2) != ffjavascript's value", TP_NAME);
    /* the exact reduced pairing and the power m */
    T_F12 exact;
    TF(t_f12_from_dec)(&exact, TP_KAT_EXACT);
    CHECK(TF(miller_loop)(&f, g1, g2, 1) == CZ_OK);
    TF(t_f12_pow_mpz)(&got, &f, c->exact);
    CHECK_MSG(TF(fq12_eq)(&got, &exact), "%s: miller^((p^12-1)/r) != exact reduced pairing", TP_NAME);
    TF(t_f12_pow_mpz)(&got, &exact, c->m);
    TF(t_f12_from_dec)(&want, TP_KAT_PAIRING);
    CHECK_MSG(TF(fq12_eq)(&got, &want), "%s: exact^m != snarkjs pairing", TP_NAME);
    /* miller_loop + final_exp = pairing */
    CHECK(TF(final_exp)(&got, &f) == CZ_OK);
    CHECK(TF(fq12_eq)(&got, &want));
    /* aliasing out = f */
    CHECK(TF(final_exp)(&f, &f) == CZ_OK);
    CHECK(TF(fq12_eq)(&f, &want));
    /* non-degenerate, order r */
    CHECK(!TF(fq12_is_one)(&want));
    TF(t_f12_pow_mpz)(&got, &want, c->r);
    CHECK_MSG(TF(fq12_is_one)(&got), "%s: e(G1, G2)^r != 1", TP_NAME);
}

static void TF(t_test_final_exp)(TF(t_ctx_t) *c, cz_rng *rng)
{
    long n = cz_test_iters(5);
    for (long i = 0; i < n; i++) {
        T_F12 f, got, want;
        TF(fq12_random)(&f, rng);
        CHECK(TF(final_exp)(&got, &f) == CZ_OK);
        TF(t_f12_pow_mpz)(&want, &f, c->m_exact);
        CHECK_MSG(TF(fq12_eq)(&got, &want), "%s: final_exp != pow(f, m (p^12-1)/r)", TP_NAME);
        TF(t_f12_pow_mpz)(&want, &got, c->r);
        CHECK(TF(fq12_is_one)(&want));
    }
    T_F12 z, r;
    TF(fq12_set_zero)(&z);
    CHECK(TF(final_exp)(&r, &z) == CZ_ERR_DIV_BY_ZERO);
    CHECK(TF(final_exp)(NULL, &z) == CZ_ERR_INVALID_ARG);
}

static void TF(t_test_bilinear)(TF(t_ctx_t) *c, cz_rng *rng)
{
    long n = cz_test_iters(10);
    for (long i = 0; i < n; i++) {
        T_G1A P, P2, aP, abP, nP, PP2;
        T_G2A Q, Q2, bQ, abQ, nQ, QQ2;
        T_FR a, b, k;
        TF(t_g1_rand)(&P, rng);
        TF(t_g2_rand)(&Q, rng);
        TF(fr_random)(&a, rng);
        TF(fr_random)(&b, rng);
        TF(fr_mul)(&k, &a, &b);
        TF(t_g1_mul)(&aP, &P, &a);
        TF(t_g2_mul)(&bQ, &Q, &b);
        TF(t_g1_mul)(&abP, &P, &k);
        TF(t_g2_mul)(&abQ, &Q, &k);
        T_F12 e = TF(t_e_)(&P, &Q), e1 = TF(t_e_)(&aP, &bQ), e2 = TF(t_e_)(&abP, &Q), e3 = TF(t_e_)(&P, &abQ), x;
        uint64_t kl[4];
        TF(fr_to_canonical)(kl, &k);
        TF(fq12_pow)(&x, &e, kl, 4);
        CHECK_MSG(TF(fq12_eq)(&e1, &x), "%s: e(aP, bQ) != e(P, Q)^(ab)", TP_NAME);
        CHECK_MSG(TF(fq12_eq)(&e2, &x), "%s: e(abP, Q) != e(P, Q)^(ab)", TP_NAME);
        CHECK_MSG(TF(fq12_eq)(&e3, &x), "%s: e(P, abQ) != e(P, Q)^(ab)", TP_NAME);
        CHECK(!TF(fq12_is_one)(&e));
        /* additivity in each argument, without scalar multiplication */
        TF(t_g1_rand)(&P2, rng);
        TF(t_g2_rand)(&Q2, rng);
        {
            T_G1 j;
            TF(g1_from_affine)(&j, &P);
            TF(g1_add_affine)(&j, &j, &P2);
            TF(g1_to_affine)(&PP2, &j);
            T_G2 h;
            TF(g2_from_affine)(&h, &Q);
            TF(g2_add_affine)(&h, &h, &Q2);
            TF(g2_to_affine)(&QQ2, &h);
        }
        T_F12 l = TF(t_e_)(&PP2, &Q), r1 = TF(t_e_)(&P2, &Q);
        TF(fq12_mul)(&r1, &r1, &e);
        CHECK_MSG(TF(fq12_eq)(&l, &r1), "%s: e(P + P', Q) != e(P, Q) e(P', Q)", TP_NAME);
        l = TF(t_e_)(&P, &QQ2);
        r1 = TF(t_e_)(&P, &Q2);
        TF(fq12_mul)(&r1, &r1, &e);
        CHECK_MSG(TF(fq12_eq)(&l, &r1), "%s: e(P, Q + Q') != e(P, Q) e(P, Q')", TP_NAME);
        /* e(-P, Q) = e(P, -Q) = e(P, Q)^-1 (= conjugate in GT) */
        TF(g1_affine_neg)(&nP, &P);
        TF(g2_affine_neg)(&nQ, &Q);
        T_F12 en = TF(t_e_)(&nP, &Q), einv;
        CHECK(TF(fq12_inv)(&einv, &e) == CZ_OK);
        CHECK_MSG(TF(fq12_eq)(&en, &einv), "%s: e(-P, Q) != e(P, Q)^-1", TP_NAME);
        en = TF(t_e_)(&P, &nQ);
        CHECK_MSG(TF(fq12_eq)(&en, &einv), "%s: e(P, -Q) != e(P, Q)^-1", TP_NAME);
        TF(fq12_conj)(&x, &e);
        CHECK(TF(fq12_eq)(&x, &einv));
        if (i == 0) {
            TF(t_f12_pow_mpz)(&x, &e, c->r);
            CHECK(TF(fq12_is_one)(&x));
        }
    }
}

static void TF(t_test_multi)(cz_rng *rng)
{
    enum { NMAX = 11 };
    T_G1A ps[NMAX];
    T_G2A qs[NMAX];
    T_F12 single[NMAX], mloop[NMAX];
    for (int i = 0; i < NMAX; i++) {
        TF(t_g1_rand)(&ps[i], rng);
        TF(t_g2_rand)(&qs[i], rng);
    }
    /* infinity points at a few places: pairs 2 (P), 9 (Q) */
    TF(g1_affine_set_inf)(&ps[2]);
    TF(g2_affine_set_inf)(&qs[9]);
    for (int i = 0; i < NMAX; i++) {
        single[i] = TF(t_e_)(&ps[i], &qs[i]);
        CHECK(TF(miller_loop)(&mloop[i], &ps[i], &qs[i], 1) == CZ_OK);
    }
    CHECK(TF(fq12_is_one)(&single[2]) && TF(fq12_is_one)(&single[9]));
    static const int sizes[] = {0, 1, 2, 3, 4, 8, 9, 11};
    for (size_t s = 0; s < CZ_ARRAY_LEN(sizes); s++) {
        int n = sizes[s];
        T_F12 want, wantm, got;
        TF(fq12_set_one)(&want);
        TF(fq12_set_one)(&wantm);
        for (int i = 0; i < n; i++) {
            TF(fq12_mul)(&want, &want, &single[i]);
            TF(fq12_mul)(&wantm, &wantm, &mloop[i]);
        }
        CHECK(TF(multi_pairing)(&got, ps, qs, (size_t)n) == CZ_OK);
        CHECK_MSG(TF(fq12_eq)(&got, &want), "%s: multi_pairing(n = %d) != product of pairings", TP_NAME, n);
        CHECK(TF(miller_loop)(&got, ps, qs, (size_t)n) == CZ_OK);
        CHECK_MSG(TF(fq12_eq)(&got, &wantm), "%s: miller_loop(n = %d) != product of Miller loops", TP_NAME, n);
    }
    /* random pairs: their product is not 1 */
    CHECK(!TF(pairing_check)(ps, qs, NMAX));
}

static void TF(t_test_check)(cz_rng *rng)
{
    T_G1A P, aP, abP[2], X;
    T_G2A Q, bQ, Y;
    T_FR a, b, k;
    TF(t_g1_rand)(&P, rng);
    TF(t_g2_rand)(&Q, rng);
    TF(fr_random)(&a, rng);
    TF(fr_random)(&b, rng);
    TF(fr_mul)(&k, &a, &b);
    TF(t_g1_mul)(&aP, &P, &a);
    TF(t_g2_mul)(&bQ, &Q, &b);
    TF(t_g1_mul)(&abP[0], &P, &k);
    TF(g1_affine_neg)(&abP[1], &abP[0]);
    /* e(aP, bQ) e(-abP, Q) = 1 */
    T_G1A ps[2] = {aP, abP[1]};
    T_G2A qs[2] = {bQ, Q};
    CHECK_MSG(TF(pairing_check)(ps, qs, 2) == 1, "%s: valid relation rejected", TP_NAME);
    /* perturbations */
    ps[1] = abP[0]; /* sign */
    CHECK(TF(pairing_check)(ps, qs, 2) == 0);
    ps[1] = abP[1];
    T_FR one, a1;
    TF(fr_set_one)(&one);
    TF(fr_add)(&a1, &a, &one);
    TF(t_g1_mul)(&X, &P, &a1); /* (a+1)P */
    ps[0] = X;
    CHECK(TF(pairing_check)(ps, qs, 2) == 0);
    ps[0] = aP;
    TF(t_g2_rand)(&Y, rng);
    qs[1] = Y;
    CHECK(TF(pairing_check)(ps, qs, 2) == 0);
    qs[1] = Q;
    CHECK(TF(pairing_check)(ps, qs, 2) == 1);
    /* dropping a pair */
    CHECK(TF(pairing_check)(ps, qs, 1) == 0);

    /* Groth16 shape: e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta), i.e.
     * e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) = 1, with
     * c = (ab - alpha beta - l gamma) / delta */
    T_FR s[7]; /* a, b, alpha, beta, l, gamma, delta */
    for (int i = 0; i < 7; i++) TF(fr_random)(&s[i], rng);
    T_FR t, u, cc;
    TF(fr_mul)(&t, &s[0], &s[1]);
    TF(fr_mul)(&u, &s[2], &s[3]);
    TF(fr_sub)(&t, &t, &u);
    TF(fr_mul)(&u, &s[4], &s[5]);
    TF(fr_sub)(&t, &t, &u);
    CHECK(TF(fr_inv)(&u, &s[6]) == CZ_OK);
    TF(fr_mul)(&cc, &t, &u);
    const T_G1A *g1 = TF(g1_generator)();
    const T_G2A *g2 = TF(g2_generator)();
    T_G1A gp[4];
    T_G2A gq[4];
    TF(t_g1_mul)(&gp[0], g1, &s[0]);
    TF(g1_affine_neg)(&gp[0], &gp[0]); /* -A */
    TF(t_g2_mul)(&gq[0], g2, &s[1]);     /* B */
    TF(t_g1_mul)(&gp[1], g1, &s[2]);     /* alpha */
    TF(t_g2_mul)(&gq[1], g2, &s[3]);     /* beta */
    TF(t_g1_mul)(&gp[2], g1, &s[4]);     /* L */
    TF(t_g2_mul)(&gq[2], g2, &s[5]);     /* gamma */
    TF(t_g1_mul)(&gp[3], g1, &cc);       /* C */
    TF(t_g2_mul)(&gq[3], g2, &s[6]);     /* delta */
    CHECK_MSG(TF(pairing_check)(gp, gq, 4) == 1, "%s: Groth16-shaped relation rejected", TP_NAME);
    /* the same through vk_alphabeta-style precomputation: e(A, B) =
     * e(alpha, beta) * e(L, gamma) e(C, delta) */
    {
        T_F12 ab, lhs, rhs;
        T_G1A A;
        TF(g1_affine_neg)(&A, &gp[0]);
        lhs = TF(t_e_)(&A, &gq[0]);
        ab = TF(t_e_)(&gp[1], &gq[1]);
        CHECK(TF(multi_pairing)(&rhs, &gp[2], &gq[2], 2) == CZ_OK);
        TF(fq12_mul)(&rhs, &rhs, &ab);
        CHECK(TF(fq12_eq)(&lhs, &rhs));
    }
    for (int i = 0; i < 4; i++) { /* perturb each G1 input: add the generator */
        T_G1A keep = gp[i];
        T_G1 j;
        TF(g1_from_affine)(&j, &gp[i]);
        TF(g1_add_affine)(&j, &j, g1);
        TF(g1_to_affine)(&gp[i], &j);
        CHECK_MSG(TF(pairing_check)(gp, gq, 4) == 0, "%s: perturbed G1 input %d accepted", TP_NAME, i);
        gp[i] = keep;
    }
    {
        T_G2A keep = gq[3];
        T_G2 h;
        TF(g2_from_affine)(&h, &gq[3]);
        TF(g2_add_affine)(&h, &h, g2);
        TF(g2_to_affine)(&gq[3], &h);
        CHECK(TF(pairing_check)(gp, gq, 4) == 0);
        gq[3] = keep;
    }
    CHECK(TF(pairing_check)(gp, gq, 4) == 1);
}

static void TF(t_test_infinity)(cz_rng *rng)
{
    T_G1A P, O1;
    T_G2A Q, O2;
    TF(t_g1_rand)(&P, rng);
    TF(t_g2_rand)(&Q, rng);
    TF(g1_affine_set_inf)(&O1);
    TF(g2_affine_set_inf)(&O2);
    T_F12 r;
    CHECK(TF(pairing)(&r, &O1, &Q) == CZ_OK && TF(fq12_is_one)(&r));
    CHECK(TF(pairing)(&r, &P, &O2) == CZ_OK && TF(fq12_is_one)(&r));
    CHECK(TF(pairing)(&r, &O1, &O2) == CZ_OK && TF(fq12_is_one)(&r));
    CHECK(TF(miller_loop)(&r, &O1, &Q, 1) == CZ_OK && TF(fq12_is_one)(&r));
    T_G1A ps[2] = {O1, P};
    T_G2A qs[2] = {Q, O2};
    CHECK(TF(pairing_check)(ps, qs, 2) == 1);
    CHECK(TF(multi_pairing)(&r, ps, qs, 2) == CZ_OK && TF(fq12_is_one)(&r));
    /* empty product */
    CHECK(TF(multi_pairing)(&r, NULL, NULL, 0) == CZ_OK && TF(fq12_is_one)(&r));
    CHECK(TF(pairing_check)(NULL, NULL, 0) == 1);
    /* invalid arguments */
    CHECK(TF(multi_pairing)(&r, NULL, qs, 1) == CZ_ERR_INVALID_ARG);
    CHECK(TF(multi_pairing)(NULL, ps, qs, 1) == CZ_ERR_INVALID_ARG);
    CHECK(TF(miller_loop)(&r, ps, NULL, 1) == CZ_ERR_INVALID_ARG);
    CHECK(TF(pairing)(&r, NULL, &Q) == CZ_ERR_INVALID_ARG);
    CHECK(TF(pairing_check)(ps, NULL, 2) == 0);
}

static void TF(t_test_pairing)(cz_rng *rng)
{
    TF(t_ctx_t) c;
    mpz_inits(c.p, c.r, c.exact, c.m, c.m_exact, NULL);
    mpz_import(c.p, TF(fq_LIMBS), -1, 8, 0, 0, TF(fq_modulus));
    mpz_import(c.r, TF(fr_LIMBS), -1, 8, 0, 0, TF(fr_modulus));
    mpz_pow_ui(c.exact, c.p, 12);
    mpz_sub_ui(c.exact, c.exact, 1);
    CHECK(mpz_divisible_p(c.exact, c.r));
    mpz_divexact(c.exact, c.exact, c.r);
#if TP_BN
    /* m = 2x(6x^2 + 3x + 1), x = 4965661367192848881 */
    mpz_t x, t;
    mpz_init_set_str(x, "4965661367192848881", 10);
    mpz_init(t);
    mpz_mul(t, x, x);
    mpz_mul_ui(t, t, 6);
    mpz_addmul_ui(t, x, 3);
    mpz_add_ui(t, t, 1);
    mpz_mul(c.m, t, x);
    mpz_mul_ui(c.m, c.m, 2);
    /* x really is BN254's parameter: p = 36x^4 + 36x^3 + 24x^2 + 6x + 1 */
    mpz_set_ui(t, 36);
    mpz_mul(t, t, x);
    mpz_add_ui(t, t, 36);
    mpz_mul(t, t, x);
    mpz_add_ui(t, t, 24);
    mpz_mul(t, t, x);
    mpz_add_ui(t, t, 6);
    mpz_mul(t, t, x);
    mpz_add_ui(t, t, 1);
    CHECK(mpz_cmp(t, c.p) == 0);
    mpz_clears(x, t, NULL);
#else
    mpz_set_ui(c.m, 3);
#endif
    {
        mpz_t g;
        mpz_init(g);
        mpz_gcd(g, c.m, c.r);
        CHECK(mpz_cmp_ui(g, 1) == 0);
        mpz_clear(g);
    }
    mpz_mul(c.m_exact, c.m, c.exact);
    TF(t_test_kat)(&c);
    TF(t_test_final_exp)(&c, rng);
    TF(t_test_bilinear)(&c, rng);
    TF(t_test_multi)(rng);
    TF(t_test_check)(rng);
    TF(t_test_infinity)(rng);
    printf("%s: pairing done (%ld passed, %ld failed so far)\n", TP_NAME, cz_test_passed, cz_test_failed);
    mpz_clears(c.p, c.r, c.exact, c.m, c.m_exact, NULL);
}

#undef TF
#undef T_FQ
#undef T_FR
#undef T_F12
#undef T_G1
#undef T_G2
#undef T_G1A
#undef T_G2A

#endif /* TP */
