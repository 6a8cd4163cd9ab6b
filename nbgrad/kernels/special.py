"""Per-element bodies of ``torch.special``'s Bessel, error-function and incomplete-gamma
families, shared by the CPU loops and the device kernels (as ``scalar.py``'s).

The algorithms are the ones PyTorch's kernels use (ATen's ``Math.h``, most from the Cephes
library: Chebyshev expansions over fixed intervals, rational approximations, series and
continued fractions), so values agree with PyTorch's to rounding; ``erfcx`` (where PyTorch
uses a 100-interval Chebyshev table) is ``exp(x^2) erfc(x)`` with ``x^2`` split exactly, a
continued fraction further out. All compute in float64 (the literals) and are rounded
once, to the output's dtype, by the loop that calls them.
"""

import math

from numba import njit

from .scalar import _hurwitz_zeta

_jit = njit(inline="always", nogil=True)
_SQRT_PI = 1.7724538509055160273
_SQRT_2 = 1.4142135623730950488
_EPS = 1.11022302462515654042e-16


@_jit
def _as_f64(a):
    """``a`` as a float64 (Numba's ``float()`` keeps a float32 a float32; the product with
    a float64 1.0 keeps the sign of zero and NaN)."""
    return a * 1.0


# ----- series evaluators (Cephes' chbevl / polevl / p1evl) --------------------------------
@_jit
def _chbevl(x, c):
    """The Chebyshev series ``sum' c[i] T_i(x / 2)`` (Clenshaw), coefficients highest
    order first."""
    b0 = c[0]
    b1 = 0.0
    b2 = 0.0
    for i in range(1, len(c)):
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + c[i]
    return 0.5 * (b0 - b2)


@_jit
def _polevl(x, c):
    """The polynomial with coefficients ``c``, highest degree first (Horner)."""
    r = 0.0
    for i in range(len(c)):
        r = r * x + c[i]
    return r


@_jit
def _p1evl(x, c):
    """``_polevl`` with a leading coefficient 1 left out of ``c``."""
    r = x + c[0]
    for i in range(1, len(c)):
        r = r * x + c[i]
    return r


# ----- modified Bessel functions of the first kind: I0, I1 and their scaled forms ------------
# Chebyshev coefficients of exp(-x) I0(x) on [0, 8] (in x/2 - 2) and of sqrt(x) exp(-x) I0(x)
# on (8, inf) (in 32/x - 2)
_I0_A = (
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1)


@_jit
def i0e(a):
    """``exp(-|x|) I0(x)``."""
    x = abs(_as_f64(a))
    if x <= 8.0:
        return _chbevl(x / 2.0 - 2.0, _I0_A)
    return _chbevl(32.0 / x - 2.0, _I0_B) / math.sqrt(x)


@_jit
def i0(a):
    """The modified Bessel function of the first kind of order 0."""
    x = abs(_as_f64(a))
    if x <= 8.0:
        return math.exp(x) * _chbevl(x / 2.0 - 2.0, _I0_A)
    return math.exp(x) * _chbevl(32.0 / x - 2.0, _I0_B) / math.sqrt(x)


# ----- the error-function family ---------------------------------------------------------
@_jit
def _exp_square(x):
    """``exp(x * x)`` with ``x * x`` split exactly into a double and its rounding error
    (Veltkamp), so the result carries no error from the square."""
    h = x * x
    c = 134217729.0 * x
    xh = c - (c - x)
    xl = x - xh
    lo = ((xh * xh - h) + 2.0 * xh * xl) + xl * xl
    return math.exp(h) * (1.0 + lo)


@_jit
def _erfcx_nonneg(x):
    if x < 10.0:  # erfc is accurate relative to itself out to its underflow
        return _exp_square(x) * math.erfc(x)
    if x > 5.0e7:  # (1 / (sqrt(pi) x) to rounding; x * x would overflow further out)
        return 1.0 / (_SQRT_PI * x)
    # the continued fraction erfc(x) exp(x^2) = 1/sqrt(pi) / (x + (1/2)/(x + 1/(x + ...))),
    # evaluated from its 50th level (converged to rounding for x >= 10)
    f = x
    for k in range(50, 0, -1):
        f = x + (0.5 * k) / f
    return 1.0 / (_SQRT_PI * f)


@_jit
def erfcx(a):
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    x = _as_f64(a)
    if x != x:
        return x
    if x >= 0.0:
        return _erfcx_nonneg(x)
    if x < -26.7:  # exp(x^2) overflows
        return math.inf
    return 2.0 * _exp_square(x) - _erfcx_nonneg(-x)


@_jit
def log_ndtr(a):
    """The log of the standard normal CDF, accurate far into the lower tail."""
    x = _as_f64(a)
    t = x / _SQRT_2
    if x < -1.0:
        return math.log(erfcx(-t) / 2.0) - t * t
    return math.log1p(-math.erfc(t) / 2.0)


# ----- the Hurwitz zeta function -----------------------------------------------------------
@_jit
def zeta(x, q):
    """``sum over k >= 0 of (k + q) ** -x`` (Cephes, as PyTorch)."""
    return _hurwitz_zeta(_as_f64(x), _as_f64(q))


# ----- the regularized incomplete gamma functions ----------------------------------------
@_jit
def _igam_prefactor(a, x):
    """``x^a exp(-x) / Gamma(a)``."""
    return math.exp(a * math.log(x) - x - math.lgamma(a))


@_jit
def _igam_series(a, x):
    """P(a, x) by its power series (for x < a + 1)."""
    term = 1.0 / a
    total = term
    ap = a
    for _ in range(2000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * _igam_prefactor(a, x)


@_jit
def _igamc_fraction(a, x):
    """Q(a, x) by Legendre's continued fraction (for x >= a + 1), modified Lentz."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 2000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h * _igam_prefactor(a, x)


@_jit
def _igam_special(a, x, lower):
    """P (``lower``) or Q at the edges of the domain; NaN when none applies."""
    if a < 0.0 or x < 0.0 or a != a or x != x:
        return math.nan
    if a == 0.0:
        if x > 0.0:
            return 1.0 if lower else 0.0
        return math.nan
    if x == 0.0:
        return 0.0 if lower else 1.0
    if a == math.inf:
        if x == math.inf:
            return math.nan
        return 0.0 if lower else 1.0
    if x == math.inf:
        return 1.0 if lower else 0.0
    return -1.0  # (no edge: computed)


@_jit
def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    a, x = _as_f64(a), _as_f64(x)
    edge = _igam_special(a, x, True)
    if edge != -1.0:
        return edge
    if x < a + 1.0:
        return _igam_series(a, x)
    return 1.0 - _igamc_fraction(a, x)


@_jit
def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    a, x = _as_f64(a), _as_f64(x)
    edge = _igam_special(a, x, False)
    if edge != -1.0:
        return edge
    if x < a + 1.0:
        return 1.0 - _igam_series(a, x)
    return _igamc_fraction(a, x)


# ----- coefficient tables (Cephes, as in PyTorch's Math.h): highest order first ------------
_I1E_A = (2.77791411276104639959E-18, -2.11142121435816608115E-17,
    1.55363195773620046921E-16, -1.10559694773538630805E-15, 7.60068429473540693410E-15,
    -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10,
    -1.88724975172282928790E-9, 9.38153738649577178388E-9, -4.44505912879632808065E-8,
    2.00329475355213526229E-7, -8.56872026469545474066E-7, 3.47025130813767847674E-6,
    -1.32731636560394358279E-5, 4.78156510755005422638E-5, -1.61760815825896745588E-4,
    5.12285956168575772895E-4, -1.51357245063125314899E-3, 4.15642294431288815669E-3,
    -1.05640848946261981558E-2, 2.47264490306265168283E-2, -5.29459812080949914269E-2,
    1.02643658689847095384E-1, -1.76416518357834055153E-1, 2.52587186443633654823E-1)
_I1E_B = (7.51729631084210481353E-18, 4.41434832307170791151E-18,
    -4.65030536848935832153E-17, -3.20952592199342395980E-17, 2.96262899764595013876E-16,
    3.30820231092092828324E-16, -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14, 4.27244001671195135429E-14, -2.10154184277266431302E-14,
    -4.08355111109219731823E-13, -7.19855177624590851209E-13, 2.03562854414708950722E-12,
    1.41258074366137813316E-11, 3.25260358301548823856E-11, -1.89749581235054123450E-11,
    -5.58974346219658380687E-10, -3.83538038596423702205E-9, -2.63146884688951950684E-8,
    -2.51223623787020892529E-7, -3.88256480887769039346E-6, -1.10588938762623716291E-4,
    -9.76109749136146840777E-3, 7.78576235018280120474E-1)
_NDTRI_P0 = (-5.99633501014107895267E1, 9.80010754185999661536E1,
    -5.66762857469070293439E1, 1.39312609387279679503E1, -1.23916583867381258016E0)
_NDTRI_Q0 = (1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0,
    8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2,
    -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0)
_NDTRI_P1 = (4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
    4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
    -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4)
_NDTRI_Q1 = (1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1,
    4.13172038254672030440E1, 1.50425385692907503408E1, 2.50464946208309415979E0,
    -1.42182922854787788574E-1, -3.80806407691578277194E-2, -9.33259480895457427372E-4)
_NDTRI_P2 = (3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
    1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
    3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9)
_NDTRI_Q2 = (1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0,
    1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2,
    3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9)
_J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02,
    1.23953371646414299388e+00, 5.44725003058768775090e+00, 8.74716500199817011941e+00,
    5.30324038235394892183e+00, 9.99999999999999997821e-01)
_J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02,
    1.25352743901058953537e+00, 5.47097740330417105182e+00, 8.76190883237069594232e+00,
    5.30605288235394617618e+00, 1.00000000000000000218e+00)
_J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00,
    -1.95539544257735972385e+01, -9.32060152123768231369e+01, -1.77681167980488050595e+02,
    -1.47077505154951170175e+02, -5.14105326766599330220e+01, -6.05014350600728481186e+00)
_J0_QQ = (6.43178256118178023184e+01, 8.56430025976980587198e+02,
    3.88240183605401609683e+03, 7.24046774195652478189e+03, 5.93072701187316984827e+03,
    2.06209331660327847417e+03, 2.42005740240291393179e+02)
_J0_RP = (-4.79443220978201773821e+09, 1.95617491946556577543e+12,
    -2.49248344360967716204e+14, 9.70862251047306323952e+15)
_J0_RQ = (4.99563147152651017219e+02, 1.73785401676374683123e+05,
    4.84409658339962045305e+07, 1.11855537045356834862e+10, 2.11277520115489217587e+12,
    3.10518229857422583814e+14, 3.18121955943204943306e+16, 1.71086294081043136091e+18)
_J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02,
    1.12719608129684925192e+00, 5.11207951146807644818e+00, 8.42404590141772420927e+00,
    5.21451598682361504063e+00, 1.00000000000000000254e+00)
_J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02,
    1.10514232634061696926e+00, 5.07386386128601488557e+00, 8.39985554327604159757e+00,
    5.20982848682361821619e+00, 9.99999999999999997461e-01)
_J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e+00,
    7.58238284132545283818e+01, 3.66779609360150777800e+02, 7.10856304998926107277e+02,
    5.97489612400613639965e+02, 2.11688757100572135698e+02, 2.52070205858023719784e+01)
_J1_QQ = (7.42373277035675149943e+01, 1.05644886038262816351e+03,
    4.98641058337653607651e+03, 9.56231892404756170795e+03, 7.99704160447350683650e+03,
    2.82619278517639096600e+03, 3.36093607810698293419e+02)
_J1_RP = (-8.99971225705559398224e+08, 4.52228297998194034323e+11,
    -7.27494245221818276015e+13, 3.68295732863852883286e+15)
_J1_RQ = (6.20836478118054335476e+02, 2.56987256757748830383e+05,
    8.35146791431949253037e+07, 2.21511595479792499675e+10, 4.74914122079991414898e+12,
    7.84369607876235854894e+14, 8.95222336184627338078e+16, 5.32278620332680085395e+18)
_Y0_YP = (1.55924367855235737965e+04, -1.46639295903971606143e+07,
    5.43526477051876500413e+09, -9.82136065717911466409e+11, 8.75906394395366999549e+13,
    -3.46628303384729719441e+15, 4.42733268572569800351e+16, -1.84950800436986690637e+16)
_Y0_YQ = (1.04128353664259848412e+03, 6.26107330137134956842e+05,
    2.68919633393814121987e+08, 8.64002487103935000337e+10, 2.02979612750105546709e+13,
    3.17157752842975028269e+15, 2.50596256172653059228e+17)
_Y1_YP = (1.26320474790178026440e+09, -6.47355876379160291031e+11,
    1.14509511541823727583e+14, -8.12770255501325109621e+15, 2.02439475713594898196e+17,
    -7.78877196265950026825e+17)
_Y1_YQ = (5.94301592346128195359e+02, 2.35564092943068577943e+05,
    7.34811944459721705660e+07, 1.87601316108706159478e+10, 3.88231277496238566008e+12,
    6.20557727146953693363e+14, 6.87141087355300489866e+16, 3.97270608116560655612e+18)
_K0_A = (1.37446543561352307156e-16, 4.25981614279661018399e-14,
    1.03496952576338420167e-11, 1.90451637722020886025e-09, 2.53479107902614945675e-07,
    2.28621210311945178607e-05, 1.26461541144692592338e-03, 3.59799365153615016266e-02,
    3.44289899924628486886e-01, -5.35327393233902768720e-01)
_K0_B = (5.30043377268626276149e-18, -1.64758043015242134646e-17,
    5.21039150503902756861e-17, -1.67823109680541210385e-16, 5.51205597852431940784e-16,
    -1.84859337734377901440e-15, 6.34007647740507060557e-15, -2.22751332699166985548e-14,
    8.03289077536357521100e-14, -2.98009692317273043925e-13, 1.14034058820847496303e-12,
    -4.51459788337394416547e-12, 1.85594911495471785253e-11, -7.95748924447710747776e-11,
    3.57739728140030116597e-10, -1.69753450938905987466e-09, 8.57403401741422608519e-09,
    -4.66048989768794782956e-08, 2.76681363944501510342e-07, -1.83175552271911948767e-06,
    1.39498137188764993662e-05, -1.28495495816278026384e-04, 1.56988388573005337491e-03,
    -3.14481013119645005427e-02, 2.44030308206595545468e+00)
_K1_A = (-7.02386347938628759343e-18, -2.42744985051936593393e-15,
    -6.66690169419932900609e-13, -1.41148839263352776110e-10, -2.21338763073472585583e-08,
    -2.43340614156596823496e-06, -1.73028895751305206302e-04, -6.97572385963986435018e-03,
    -1.22611180822657148235e-01, -3.53155960776544875667e-01, 1.52530022733894777053e+00)
_K1_B = (-5.75674448366501715755e-18, 1.79405087314755922667e-17,
    -5.68946255844285935196e-17, 1.83809354436663880070e-16, -6.05704724837331885336e-16,
    2.03870316562433424052e-15, -7.01983709041831346144e-15, 2.47715442448130437068e-14,
    -8.97670518232499435011e-14, 3.34841966607842919884e-13, -1.28917396095102890680e-12,
    5.13963967348173025100e-12, -2.12996783842756842877e-11, 9.21831518760500529508e-11,
    -4.19035475934189648750e-10, 2.01504975519703286596e-09, -1.03457624656780970260e-08,
    5.74108412545004946722e-08, -3.50196060308781257119e-07, 2.40648494783721712015e-06,
    -1.93619797416608296024e-05, 1.95215518471351631108e-04, -2.85781685962277938680e-03,
    1.03923736576817238437e-01, 2.72062619048444266945e+00)
_AIRY_AN = (3.46538101525629032477e-01, 1.20075952739645805542e+01,
    7.62796053615234516538e+01, 1.68089224934630576269e+02, 1.59756391350164413639e+02,
    7.05360906840444183113e+01, 1.40264691163389668864e+01, 9.99999999999999995305e-01)
_AIRY_AD = (5.67594532638770212846e-01, 1.47562562584847203173e+01,
    8.45138970141474626562e+01, 1.77318088145400459522e+02, 1.64234692871529701831e+02,
    7.14778400825575695274e+01, 1.40959135607834029598e+01, 1.00000000000000000470e+00)
_AIRY_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01,
    -6.93158036036933542233e-01, -2.79779981545119124951e-01, -4.91900132609500318020e-02,
    -4.06265923594885404393e-03, -1.59276496239262096340e-04, -2.77649108155232920844e-06,
    -1.67787698489114633780e-08)
_AIRY_AFD = (1.33560420706553243746e+01, 3.26825032795224613948e+01,
    2.67367040941499554804e+01, 9.18707402907259625840e+00, 1.47529146771666414581e+00,
    1.15687173795188044134e-01, 4.40291641615211203805e-03, 7.54720348287414296618e-05,
    4.51850092970580378464e-07)
_AIRY_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01,
    1.06579897599595591108e+00, 9.39169229816650230044e-01, 3.51465656105547619242e-01,
    6.33888919628925490927e-02, 5.85804113048388458567e-03, 2.82851600836737019778e-04,
    6.98793669997260967291e-06, 8.11789239554389293311e-08, 3.41551784765923618484e-10)
_AIRY_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01,
    1.55646628932864612953e+01, 5.47686069422975497931e+00, 9.54293611618961883998e-01,
    8.64580826352392193095e-02, 4.12656523824222607191e-03, 1.01259085116509135510e-04,
    1.17166733214413521882e-06, 4.91834570062930015649e-09)


# ----- I1 and exp(-|x|) I1 (Chebyshev, on the intervals of I0) -----------------------------
@_jit
def i1e(a):
    """``exp(-|x|) I1(x)``."""
    x = _as_f64(a)
    ax = abs(x)
    if ax <= 8.0:
        r = _chbevl(ax / 2.0 - 2.0, _I1E_A) * ax
    else:
        r = _chbevl(32.0 / ax - 2.0, _I1E_B) / math.sqrt(ax)
    return -r if x < 0.0 else r


@_jit
def i1(a):
    """The modified Bessel function of the first kind of order 1."""
    x = _as_f64(a)
    ax = abs(x)
    if ax <= 8.0:
        r = math.exp(ax) * ax * _chbevl(ax / 2.0 - 2.0, _I1E_A)
    else:
        r = math.exp(ax) * _chbevl(32.0 / ax - 2.0, _I1E_B) / math.sqrt(ax)
    return -r if x < 0.0 else r


# ----- the inverse of the standard normal CDF (Cephes' ndtri) ------------------------------
@_jit
def ndtri(a):
    """``x`` with ``Phi(x) = p``: a rational function of ``p - 1/2`` in the middle, of
    ``1 / sqrt(-2 log p)`` (two ranges) in the tails."""
    y = _as_f64(a)
    if y == 0.0:
        return -math.inf
    if y == 1.0:
        return math.inf
    if y < 0.0 or y > 1.0:
        return math.nan
    expm2 = 0.13533528323661269189  # exp(-2)
    upper = y > 1.0 - expm2
    if upper:
        y = 1.0 - y
    if y > expm2:
        y -= 0.5
        y2 = y * y
        x = y + y * (y2 * _polevl(y2, _NDTRI_P0) / _polevl(y2, _NDTRI_Q0))
        return x * 2.50662827463100050242
    x = math.sqrt(-2.0 * math.log(y))
    x0 = x - math.log(x) / x
    z = 1.0 / x
    if x < 8.0:
        x1 = z * _polevl(z, _NDTRI_P1) / _polevl(z, _NDTRI_Q1)
    else:
        x1 = z * _polevl(z, _NDTRI_P2) / _polevl(z, _NDTRI_Q2)
    x = x0 - x1
    return x if upper else -x


# ----- Bessel functions of the first and second kinds, orders 0 and 1 (Cephes) -------------
_PI_4 = 0.785398163397448309615660845819875721
_3PI_4 = 2.356194490192344928846982537459627163
_SQRT_2_PI = 0.797884560802865355879892119868763737
_2_PI = 0.636619772367581343075535053490057448


@_jit
def _bessel_far(x, pp, pq, qp, qq, shift, second):
    """The asymptotic form beyond 5 shared by J and Y: the cosine and sine of ``x -
    shift`` weighted by two rational functions of ``(5 / x)^2``."""
    z = 25.0 / (x * x)
    p = _polevl(z, pp) / _polevl(z, pq)
    q = 5.0 / x * (_polevl(z, qp) / _p1evl(z, qq))
    c, s = math.cos(x - shift), math.sin(x - shift)
    w = p * s + q * c if second else p * c - q * s
    return w * _SQRT_2_PI / math.sqrt(x)


@_jit
def bessel_j0(a):
    """The Bessel function of the first kind of order 0."""
    x = abs(_as_f64(a))
    if x <= 5.0:
        if x < 1e-5:
            return 1.0 - x * x / 4.0
        z = x * x
        return ((z - 5.78318596294678452118) * (z - 30.4712623436620863991)
                * _polevl(z, _J0_RP) / _p1evl(z, _J0_RQ))
    return _bessel_far(x, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _PI_4, False)


@_jit
def bessel_j1(a):
    """The Bessel function of the first kind of order 1."""
    x = _as_f64(a)
    if abs(x) <= 5.0:  # (odd in x as written: -0.0 gives -0.0)
        z = x * x
        return (_polevl(z, _J1_RP) / _p1evl(z, _J1_RQ) * x * (z - 14.6819706421238932572)
                * (z - 49.2184563216946036703))
    r = _bessel_far(abs(x), _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _3PI_4, False)
    return -r if x < 0.0 else r


@_jit
def bessel_y0(a):
    """The Bessel function of the second kind of order 0."""
    x = _as_f64(a)
    if x <= 5.0:
        if x == 0.0:
            return -math.inf
        if x < 0.0:
            return math.nan
        z = x * x
        return _polevl(z, _Y0_YP) / _p1evl(z, _Y0_YQ) + _2_PI * math.log(x) * bessel_j0(x)
    return _bessel_far(x, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _PI_4, True)


@_jit
def bessel_y1(a):
    """The Bessel function of the second kind of order 1."""
    x = _as_f64(a)
    if x <= 5.0:
        if x == 0.0:
            return -math.inf
        if x < 0.0:
            return math.nan
        z = x * x
        return (x * (_polevl(z, _Y1_YP) / _p1evl(z, _Y1_YQ))
                + _2_PI * (bessel_j1(x) * math.log(x) - 1.0 / x))
    return _bessel_far(x, _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _3PI_4, True)


# ----- modified Bessel functions of the second kind, orders 0 and 1 (Cephes) ----------------
@_jit
def _bessel_k(a, one, scaled):
    """K0 (K1 when ``one``) at ``a``, times ``exp(x)`` when ``scaled``: a Chebyshev series
    in ``x^2 - 2`` with the log term of I0 / I1 up to 2, in ``8/x - 2`` beyond."""
    x = _as_f64(a)
    if x == 0.0:
        return math.inf
    if x < 0.0:
        return math.nan
    if x <= 2.0:
        if one:
            r = math.log(0.5 * x) * i1(x) + _chbevl(x * x - 2.0, _K1_A) / x
        else:
            r = _chbevl(x * x - 2.0, _K0_A) - math.log(0.5 * x) * i0(x)
        return r * math.exp(x) if scaled else r
    r = _chbevl(8.0 / x - 2.0, _K1_B if one else _K0_B) / math.sqrt(x)
    return r if scaled else math.exp(-x) * r


@_jit
def modified_bessel_k0(a):
    """The modified Bessel function of the second kind of order 0."""
    return _bessel_k(a, False, False)


@_jit
def scaled_modified_bessel_k0(a):
    """``exp(x) K0(x)``."""
    return _bessel_k(a, False, True)


@_jit
def modified_bessel_k1(a):
    """The modified Bessel function of the second kind of order 1."""
    return _bessel_k(a, True, False)


@_jit
def scaled_modified_bessel_k1(a):
    """``exp(x) K1(x)``."""
    return _bessel_k(a, True, True)


# ----- the Airy function Ai and the spherical Bessel function j0 ----------------------------
@_jit
def airy_ai(a):
    """The Airy function ``Ai``: asymptotic forms beyond +-2.09, the Maclaurin series
    between (Cephes)."""
    x = _as_f64(a)
    if x == math.inf or x == -math.inf:
        return math.nan
    if x > 103.892:
        return 0.0
    if x < -2.09:
        t = -2.0 * x * math.sqrt(-x) / 3.0
        z = 1.0 / t
        zz = z * z
        f = 1.0 + zz * _polevl(zz, _AIRY_AFN) / _polevl(zz, _AIRY_AFD)
        g = z * _polevl(zz, _AIRY_AGN) / _polevl(zz, _AIRY_AGD)
        t += 0.25 * math.pi
        return 5.64189583547756286948e-01 / math.sqrt(math.sqrt(-x)) * (
            math.sin(t) * f - math.cos(t) * g)
    if x >= 2.09:
        zeta = 2.0 * x * math.sqrt(x) / 3.0
        r = _polevl(1.0 / zeta, _AIRY_AN) / _polevl(1.0 / zeta, _AIRY_AD)
        return 5.64189583547756286948e-01 * r / (2.0 * math.sqrt(math.sqrt(x)) * math.exp(zeta))
    # Ai = c1 f - c2 g, f and g the series in x^3 (a NaN stops at once and stays NaN)
    f = 1.0
    g = x
    m = 1.0
    n = x
    k = 1.0
    z = x * x * x
    t = 1.0
    while t > 2.220446049250313e-16:
        m *= z
        k += 1.0
        m /= k
        n *= z
        k += 1.0
        n /= k
        m /= k
        f += m
        k += 1.0
        n /= k
        g += n
        t = abs(m / f)
    return 0.355028053887817239260 * f - 0.258819403792806798405 * g


@_jit
def spherical_bessel_j0(a):
    """``sin(x) / x`` (its Taylor series near 0)."""
    x = _as_f64(a)
    if x == math.inf or x == -math.inf:
        return 0.0
    if abs(x) < 0.5:
        z = x * x
        return 1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (
            1.0 / 362880.0 + z * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0))))))
    return math.sin(x) / x


# ----- orthogonal polynomials of degree n (a float n truncated toward zero; NaN or an
# infinite n, or a negative one, gives 0) --------------------------------------------------
@_jit
def _degree(n):
    """``n`` as an integer degree, -1 for NaN and infinities (which give 0, as PyTorch's)."""
    n = _as_f64(n)
    if n != n or n == math.inf or n == -math.inf:
        return -1
    return int(n)


@_jit
def _recurrence(two_y, q, n):
    """``P_n`` of ``P_{k+1} = two_y P_k - P_{k-1}``, ``P_0 = 1``, ``P_1 = q`` (stops at a
    NaN)."""
    p = 1.0
    r = math.nan
    for _ in range(2, n + 1):
        if q != q:
            break
        r = two_y * q - p
        p = q
        q = r
    return r


@_jit
def _cheb_t(y, k, small):
    """T of degree ``k`` at ``y``; ``small``: the degree past which cos(k acos y) is used."""
    if abs(y) == 1.0:
        return 1.0 if y > 0.0 or k % 2 == 0 else -1.0
    if k > small and abs(y) < 1.0:
        return math.cos(k * math.acos(y))
    if k == 0:
        return 1.0
    if k == 1:
        return y
    return _recurrence(y + y, y, k)


@_jit
def chebyshev_polynomial_t(x, n):
    """The Chebyshev polynomial of the first kind, ``T_n(x)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if k >= 2 and x != x:
        return x
    return _cheb_t(x, k, 6)


@_jit
def _cheb_u_closed(y, k):
    t = math.acos(y)
    if math.sin(t) != 0.0:
        return math.sin((k + 1) * t) / math.sin(t)
    return (k + 1) * math.cos((k + 1) * t) / y


@_jit
def chebyshev_polynomial_u(x, n):
    """The Chebyshev polynomial of the second kind, ``U_n(x)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if abs(x) == 1.0:
        return float(k + 1) if x > 0.0 or k % 2 == 0 else -float(k + 1)
    if k > 8 and abs(x) < 1.0:
        return _cheb_u_closed(x, k)
    if k == 0:
        return 1.0
    if k == 1:
        return x + x
    return _recurrence(x + x, x + x, k)


@_jit
def _cheb_v_closed(y, k):
    t = math.acos(y)
    if math.sin(t / 2.0) != 1.0:
        return math.cos((k + 0.5) * t) / math.cos(t / 2.0)
    return float(k + k + 1) if k % 2 == 0 else -float(k + k + 1)


@_jit
def chebyshev_polynomial_v(x, n):
    """The Chebyshev polynomial of the third kind, ``V_n(x)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if abs(x) == 1.0:
        if x > 0.0:
            return 1.0
        return float(k + k + 1) if k % 2 == 0 else -float(k + k + 1)
    if k > 8 and abs(x) < 1.0:
        return _cheb_v_closed(x, k)
    if k == 0:
        return 1.0
    if k == 1:
        return x + x - 1.0
    return _recurrence(x + x, x + x - 1.0, k)


@_jit
def chebyshev_polynomial_w(x, n):
    """The Chebyshev polynomial of the fourth kind, ``W_n(x)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if abs(x) == 1.0:
        if x > 0.0:
            return float(k + k + 1)
        return 1.0 if k % 2 == 0 else -1.0
    if k > 8 and abs(x) < 1.0:
        t = math.acos(x)
        if math.cos(t / 2.0) != 1.0:
            return math.sin((k + 0.5) * t) / math.sin(t / 2.0)
        if x > 0.0:
            return float(k + k + 1)
        return 1.0 if k % 2 == 0 else -1.0
    if k == 0:
        return 1.0
    if k == 1:
        return x + x + 1.0
    return _recurrence(x + x, x + x + 1.0, k)


# the shifted forms: the polynomial at y = 2x - 1, their special points x = 1 and x = 0
@_jit
def shifted_chebyshev_polynomial_t(x, n):
    """``T_n(2x - 1)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if x == 1.0:
        return 1.0
    if x == 0.0:
        return 1.0 if k % 2 == 0 else -1.0
    y = x + x - 1.0
    if k > 6 and abs(y) < 1.0:
        return math.cos(k * math.acos(y))
    if k == 0:
        return 1.0
    if k == 1:
        return y
    return _recurrence(y + y, y, k)


@_jit
def shifted_chebyshev_polynomial_u(x, n):
    """``U_n(2x - 1)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if x == 1.0:
        return float(k + 1)
    if x == 0.0:
        return float(k + 1) if k % 2 == 0 else -float(k + 1)
    y = x + x - 1.0
    if k > 6 and abs(y) < 1.0:
        return _cheb_u_closed(y, k)
    if k == 0:
        return 1.0
    if k == 1:
        return y + y
    return _recurrence(y + y, y + y, k)


@_jit
def shifted_chebyshev_polynomial_v(x, n):
    """``V_n(2x - 1)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if x == 1.0:
        return 1.0
    if x == 0.0:
        return float(k + k + 1) if k % 2 == 0 else -float(k + k + 1)
    y = x + x - 1.0
    if k > 6 and abs(y) < 1.0:
        return _cheb_v_closed(y, k)
    if k == 0:
        return 1.0
    if k == 1:
        return y + y - 1.0
    return _recurrence(y + y, y + y - 1.0, k)


@_jit
def shifted_chebyshev_polynomial_w(x, n):
    """``W_n(2x - 1)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if x == 1.0:
        return float(k + k + 1)
    if x == 0.0:
        return 1.0 if k % 2 == 0 else -1.0
    y = x + x - 1.0
    if k > 4 and abs(y) < 1.0:
        t = math.acos(y)
        if math.cos(t / 2.0) != 1.0:
            return math.sin((k + 0.5) * t) / math.sin(t / 2.0)
        return 1.0 if k % 2 == 0 else -1.0
    if k == 0:
        return 1.0
    if k == 1:
        return y + y + 1.0
    return _recurrence(y + y, y + y + 1.0, k)


@_jit
def hermite_polynomial_h(x, n):
    """The physicists' Hermite polynomial ``H_n(x)`` (NaN past degree 512, as PyTorch's)."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if k == 0:
        return 1.0
    if k == 1:
        return x + x
    if k > 512:
        return math.nan
    p = 1.0
    q = x + x
    r = 0.0
    for m in range(1, k):  # H_{m+1} = 2x H_m - 2m H_{m-1}
        r = (x + x) * q - (2 * m) * p
        p = q
        q = r
    return r


@_jit
def hermite_polynomial_he(x, n):
    """The probabilists' Hermite polynomial ``He_n(x)`` (NaN past degree 512)."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if k == 0:
        return 1.0
    if k == 1:
        return x
    if k > 512:
        return math.nan
    p = 1.0
    q = x
    r = 0.0
    for m in range(1, k):  # He_{m+1} = x He_m - m He_{m-1}
        r = x * q - m * p
        p = q
        q = r
    return r


@_jit
def laguerre_polynomial_l(x, n):
    """The Laguerre polynomial ``L_n(x)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if x == 0.0 or k == 0:
        return 1.0
    if k == 1:
        return 1.0 - x
    p = 1.0
    q = 1.0 - x
    r = math.nan
    for m in range(1, k):  # (m + 1) L_{m+1} = (2m + 1 - x) L_m - m L_{m-1}
        if q != q:
            break
        r = (((m + m) + (1.0 - x)) * q - m * p) / (m + 1)
        p = q
        q = r
    return r


@_jit
def legendre_polynomial_p(x, n):
    """The Legendre polynomial ``P_n(x)``."""
    k = _degree(n)
    if k < 0:
        return 0.0
    x = _as_f64(x)
    if abs(x) == 1.0:
        return 1.0 if x > 0.0 or k % 2 == 0 else -1.0
    if k == 0:
        return 1.0
    if k == 1:
        return x
    p = 1.0
    q = x
    r = math.nan
    for m in range(1, k):  # (m + 1) P_{m+1} = (2m + 1) x P_m - m P_{m-1}
        if q != q:
            break
        r = ((m + m + 1) * x * q - m * p) / (m + 1)
        p = q
        q = r
    return r
