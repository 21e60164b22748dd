import { describe, expect, it } from 'vitest';
import { parseListenAddress } from './http-address.js';

describe('parseListenAddress', () => {
  it('reads HOST:PORT, [IPV6]:PORT and a bare port', () => {
    expect(parseListenAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListenAddress('localhost:8765')).toEqual({ host: 'localhost', port: 8765 });
    expect(parseListenAddress('[::1]:9')).toEqual({ host: '::1', port: 9 });
    expect(parseListenAddress('8080')).toEqual({ host: '127.0.0.1', port: 8080 });
  });
  it('says what is wrong with a bad value', () => {
    expect(() => parseListenAddress('127.0.0.1')).toThrow(/--http "127\.0\.0\.1": expected HOST:PORT/);
    expect(() => parseListenAddress('::1:80')).toThrow(/expected HOST:PORT/);
    expect(() => parseListenAddress('host:70000')).toThrow(/port must be 0–65535/);
    expect(() => parseListenAddress('[nothost]:80')).toThrow(/not an IPv6 address/);
  });
});
