/* spotledger dashboard — display formatting only.
 *
 * Every figure comes from the API; these functions only change how it is
 * written, never its value beyond the stated rounding. Decimals are handled as
 * strings: a JSON number with at most 15 significant digits (money has at most
 * six decimals) round-trips exactly through String(), and rounding is done on
 * the decimal digits, half away from zero, so no binary floating point
 * arithmetic can alter a figure.
 *
 * The same rules are re-implemented in tests/e2e_dashboard.sh (fmt_* in awk);
 * change both together:
 *   money    2 decimals, "$" prefix, thousands separated by ",", "-$1.50"
 *   percent  1 decimal, "%" suffix, "-12.5%"
 *   count    integer with "," separators (non-integers: exact decimal)
 *   duration integer seconds: "45 s", "4 min 05 s", "2 h 03 min"
 *   time     RFC 3339 "2026-11-24T10:02:03Z" -> "2026-11-24 10:02 UTC"
 * A missing, null or non-numeric value is "—". */
'use strict';

(function (global) {
  const DASH = '\u2014';

  /* Exact plain decimal text of a finite JSON number ("1e-7" -> "0.0000001"). */
  function decimalString(v) {
    let s = String(v);
    const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(s);
    if (!m) return s;
    const sign = m[1];
    let digits = m[2] + (m[3] || '');
    let point = m[2].length + parseInt(m[4], 10);
    if (point <= 0) {
      digits = '0'.repeat(1 - point) + digits;
      point = 1;
    } else if (point > digits.length) {
      digits = digits + '0'.repeat(point - digits.length);
    }
    const int = digits.slice(0, point).replace(/^0+(?=\d)/, '');
    const frac = digits.slice(point).replace(/0+$/, '');
    return sign + int + (frac ? '.' + frac : '');
  }

  /* Rounds a plain decimal string to exactly `places` decimals, half away from zero. */
  function roundDecimal(s, places) {
    let sign = '';
    if (s[0] === '-' || s[0] === '+') {
      if (s[0] === '-') sign = '-';
      s = s.slice(1);
    }
    let [int, frac = ''] = s.split('.');
    if (int === '') int = '0';
    if (frac.length <= places) {
      frac = frac + '0'.repeat(places - frac.length);
    } else {
      const roundUp = frac.charCodeAt(places) >= 53; /* '5' */
      frac = frac.slice(0, places);
      if (roundUp) {
        /* add one unit in the last kept place, carrying through the digits */
        const all = (int + frac).split('');
        let i = all.length - 1;
        while (i >= 0) {
          if (all[i] === '9') {
            all[i] = '0';
            i--;
          } else {
            all[i] = String.fromCharCode(all[i].charCodeAt(0) + 1);
            break;
          }
        }
        let joined = all.join('');
        if (i < 0) joined = '1' + joined;
        int = joined.slice(0, joined.length - places);
        frac = joined.slice(joined.length - places);
      }
    }
    int = int.replace(/^0+(?=\d)/, '');
    if (/^[0.]*$/.test(int + frac)) sign = ''; /* no "-0.00" */
    return sign + int + (places > 0 ? '.' + frac : '');
  }

  function group(intDigits) {
    return intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }

  function isNum(v) {
    return typeof v === 'number' && Number.isFinite(v);
  }

  function fixed(v, places) {
    const r = roundDecimal(decimalString(v), places);
    const neg = r[0] === '-';
    const body = neg ? r.slice(1) : r;
    const [i, f] = body.split('.');
    return { neg, text: group(i) + (f !== undefined ? '.' + f : '') };
  }

  function money(v) {
    if (!isNum(v)) return DASH;
    const r = fixed(v, 2);
    return (r.neg ? '-' : '') + '$' + r.text;
  }

  /* Exact value, all decimals the API sent, for titles and tooltips. */
  function moneyExact(v) {
    if (!isNum(v)) return DASH;
    const s = decimalString(v);
    const neg = s[0] === '-';
    return (neg ? '-' : '') + '$' + (neg ? s.slice(1) : s);
  }

  /* Axis ticks are chosen by Chart.js, not sent by the API: whole dollars stay short. */
  function axisMoney(v) {
    if (!isNum(v)) return '';
    const s = decimalString(v);
    if (/^-?\d+$/.test(s)) return (s[0] === '-' ? '-$' + group(s.slice(1)) : '$' + group(s));
    return money(v);
  }

  function percent(v) {
    if (!isNum(v)) return DASH;
    const r = fixed(v, 1);
    return (r.neg ? '-' : '') + r.text + '%';
  }

  function count(v) {
    if (!isNum(v)) return DASH;
    const s = decimalString(v);
    if (!/^-?\d+$/.test(s)) return s;
    return s[0] === '-' ? '-' + group(s.slice(1)) : group(s);
  }

  function pad2(n) {
    return n < 10 ? '0' + n : String(n);
  }

  function duration(v) {
    if (!isNum(v)) return DASH;
    const s = decimalString(v);
    if (!/^\d+$/.test(s)) return s + ' s'; /* fractional or negative: as sent */
    const n = parseInt(s, 10);
    if (n < 60) return n + ' s';
    if (n < 3600) return Math.floor(n / 60) + ' min ' + pad2(n % 60) + ' s';
    return group(String(Math.floor(n / 3600))) + ' h ' + pad2(Math.floor((n % 3600) / 60)) + ' min';
  }

  function time(v) {
    if (typeof v !== 'string' || v === '') return DASH;
    const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(v);
    if (!m) return v;
    const zone = !m[3] || m[3].toUpperCase() === 'Z' ? 'UTC' : m[3];
    return m[1] + ' ' + m[2] + ' ' + zone;
  }

  function date(v) {
    if (typeof v !== 'string' || v.length < 10) return DASH;
    return v.slice(0, 10);
  }

  global.SLFormat = { DASH, decimalString, roundDecimal, money, moneyExact, axisMoney, percent, count, duration, time, date, isNum };
})(window);
