import { parse, type Answer } from './api';

// sendWithProgress sends a request with XMLHttpRequest, telling progress
// how many bytes of the body have gone (fetch cannot report an upload's
// progress over HTTP/1.1); api.ts's request uses it for onUploadProgress.
export function sendWithProgress(path: string, init: RequestInit, progress: (sent: number, total: number) => void): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const aborted = () => reject(new DOMException('The request was cancelled.', 'AbortError'));
    if (init.signal?.aborted) return aborted();
    xhr.open(init.method ?? 'POST', path);
    (init.headers as Headers).forEach((value, name) => xhr.setRequestHeader(name, value));
    xhr.upload.onprogress = (e) => progress(e.loaded, e.lengthComputable ? e.total : 0);
    xhr.onload = () => resolve({ status: xhr.status, data: parse(xhr.getResponseHeader('Content-Type'), xhr.responseText) });
    xhr.onerror = () => reject(new TypeError('The request failed.'));
    xhr.onabort = aborted;
    init.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send((init.body ?? null) as XMLHttpRequestBodyInit | null);
  });
}

