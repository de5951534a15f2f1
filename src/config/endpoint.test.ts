import { describe, expect, it } from 'vitest';
import { parseEndpoint } from './endpoint.js';

describe('parseEndpoint', () => {
  it.each([
    ['https://10.0.0.1:2379', '10.0.0.1', 2379],
    ['http://etcd-0.etcd:2379', 'etcd-0.etcd', 2379],
    ['127.0.0.1:2379', '127.0.0.1', 2379],
    ['[::1]:2379', '::1', 2379],
    ['etcd', 'etcd', 443],
  ])('%s is host %s port %d', (text, host, port) => {
    expect(parseEndpoint(text)).toEqual({ host, port, text });
  });

  it.each(['dns:///etcd:2379', 'https://h:99999', 'h:x', '', 'not a host', 'http://bad host:2379', 'user@etcd:2379', 'etcd:2379/path', '[not v6]:2379'])('%s is not a host and port', (text) => {
    expect(parseEndpoint(text)).toBeUndefined();
  });
});
