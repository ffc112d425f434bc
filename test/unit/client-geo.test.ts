import { describe, expect, it } from 'vitest';
import { requestGeo, viewerIp } from '../../lambdas/domain/client-geo';

const lookup = { lookup: (ip: string | undefined) => ({ country: ip === '81.2.69.142' ? 'GB' : null, region: null, city: null }) };
const headers = (h: Record<string, string>) => (name: string) => h[name];

describe('requestGeo', () => {
  it('ignores CloudFront viewer headers unless the request is proven to come through the distribution', () => {
    const spoofed = headers({ 'cloudfront-viewer-country': 'FR', 'cloudfront-viewer-city': 'Paris' });
    expect(requestGeo({ sourceIp: '81.2.69.142', viaCloudFront: false, header: spoofed }, lookup).country).toBe('GB');
  });

  it('uses CloudFront viewer headers (URL-decoded) behind the distribution', () => {
    const h = headers({ 'cloudfront-viewer-country': 'gb', 'cloudfront-viewer-country-region-name': 'England', 'cloudfront-viewer-city': 'St%20Albans' });
    expect(requestGeo({ sourceIp: '1.2.3.4', viaCloudFront: true, header: h }, lookup)).toEqual({ country: 'GB', region: 'England', city: 'St Albans' });
  });

  it('falls back to the viewer address when CloudFront sent no country', () => {
    expect(requestGeo({ sourceIp: '10.0.0.1', viaCloudFront: true, header: headers({ 'cloudfront-viewer-address': '81.2.69.142:443' }) }, lookup).country).toBe(
      'GB',
    );
    expect(viewerIp('2001:db8::1:443')).toBe('2001:db8::1');
  });
});
