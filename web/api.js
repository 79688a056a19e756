/* spotledger dashboard: talking to the REST API. Every call goes through
 * request(): JSON (or a CSV blob) with the bearer token of this tab; on a 401
 * one token form is shown (shared by every request that met it) and the call
 * is retried; any other error becomes an ApiError with the API's code and message. */
import { $ } from './dom.js';

export const API = '/api/v1/';
const TOKEN_KEY = 'spotledger.token';

class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || 'HTTP ' + status);
    this.status = status;
    this.code = code;
  }
}

let token = '';
try {
  token = sessionStorage.getItem(TOKEN_KEY) || '';
} catch (_) {
  token = '';
}
let authPending = null; /* one prompt shared by every request that met a 401 */

function askToken(rejected) {
  if (authPending) return authPending;
  authPending = new Promise((resolve) => {
    const overlay = $('auth-overlay');
    const form = $('auth-form');
    const input = $('auth-token');
    const err = $('auth-error');
    err.hidden = !rejected;
    err.textContent = rejected ? 'That token was not accepted. Try again.' : '';
    overlay.hidden = false;
    input.value = '';
    input.focus();
    const onSubmit = (ev) => {
      ev.preventDefault();
      const t = input.value.trim();
      if (!t) return;
      form.removeEventListener('submit', onSubmit);
      token = t;
      try {
        sessionStorage.setItem(TOKEN_KEY, t);
      } catch (_) {
        /* private mode: keep it in memory for this page */
      }
      overlay.hidden = true;
      authPending = null;
      resolve();
    };
    form.addEventListener('submit', onSubmit);
  });
  return authPending;
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== '') q.set(k, v);
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

export async function request(url, asBlob) {
  for (let tries = 0; ; tries++) {
    const headers = { Accept: asBlob ? 'text/csv' : 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    const sentToken = token;
    let res;
    try {
      res = await fetch(url, { headers, cache: 'no-store', credentials: 'omit' });
    } catch (e) {
      throw new ApiError(0, 'network', 'spotledger did not answer (' + e.message + ')');
    }
    if (res.status === 401 && tries < 5) {
      /* another request may already have obtained a newer token */
      if (token === sentToken || !token) await askToken(Boolean(sentToken));
      continue;
    }
    if (!res.ok) {
      let code = 'http_' + res.status;
      let message = res.statusText || 'HTTP ' + res.status;
      try {
        const body = await res.json();
        if (body && body.error) {
          code = body.error.code || code;
          message = body.error.message || message;
        }
      } catch (_) {
        /* not JSON */
      }
      throw new ApiError(res.status, code, message);
    }
    if (asBlob) return { blob: await res.blob(), disposition: res.headers.get('Content-Disposition') };
    return res.json();
  }
}

export function api(path, params) {
  return request(API + path + query(params), false);
}
