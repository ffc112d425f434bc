/**
 * An issuer whose token endpoint is on another origin than the issuer URL (Google: issuer
 * https://accounts.google.com, token endpoint https://oauth2.googleapis.com/token). The test issuer
 * serves its token endpoint on a second port; with that origin in TALLY_OIDC_CONNECT_ORIGINS
 * (oidcConnectOrigins on AWS) the served CSP lets the page exchange the code and sign-in works;
 * without it the CSP blocks the exchange, which is why the setting exists.
 */
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBrowser, launchBrowser } from '../helpers/browser';
import { openDashboard, signInThroughIssuer } from '../helpers/dashboard';
import { LOGIN_FORM, startSignInStack, type TestIssuer } from '../helpers/oidc-issuer';
import type { TestStack } from '../helpers/local';

describeBrowser('single sign-on with the token endpoint on another origin', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe('with the token endpoint origin in the connect origins', () => {
    let stack: TestStack;
    let issuer: TestIssuer;
    let stop: () => Promise<void>;
    beforeAll(async () => {
      ({ stack, issuer, stop } = await startSignInStack({ tokenOnSecondOrigin: true, connectOrigins: 'token endpoint' }));
    });
    afterAll(async () => {
      await stop?.();
    });

    it('serves a CSP naming the issuer and the token endpoint, and signs in under it', async () => {
      const tokenOrigin = new URL(issuer.tokenEndpoint).origin;
      expect(tokenOrigin).not.toBe(issuer.issuer);
      const res = await fetch(`${stack.url}/`);
      expect(res.headers.get('content-security-policy')).toContain(`connect-src 'self' ${issuer.issuer} ${tokenOrigin};`);

      const context = await browser.createBrowserContext();
      const before = issuer.counts.tokens;
      const dash = await signInThroughIssuer(context, stack.url, 'gina@example.com', 'analyst');
      expect(await dash.page.$eval('.who', (el) => el.textContent?.trim())).toBe('gina@example.com · analyst');
      expect(issuer.counts.tokens).toBe(before + 1);
      expect(issuer.counts.refused).toEqual([]);
      // No CSP violation, no console error.
      expect(dash.problems).toEqual([]);
      await context.close();
    });
  });

  describe('without it', () => {
    let stack: TestStack;
    let issuer: TestIssuer;
    let stop: () => Promise<void>;
    beforeAll(async () => {
      ({ stack, issuer, stop } = await startSignInStack({ tokenOnSecondOrigin: true }));
    });
    afterAll(async () => {
      await stop?.();
    });

    it("the page's CSP blocks the code exchange and the sign-in page says single sign-on did not complete", async () => {
      const context = await browser.createBrowserContext();
      const dash = await openDashboard(context, stack.url, { signIn: false });
      const { page } = dash;
      await Promise.all([page.waitForNavigation(), page.click('button ::-p-text(Sign in with single sign-on)')]);
      await page.type(`input[name="${LOGIN_FORM.email}"]`, 'gina@example.com');
      await page.select(`select[name="${LOGIN_FORM.group}"]`, 'analyst');
      await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
      await page.waitForSelector('::-p-text(Single sign-on did not complete)');
      expect(issuer.counts.tokens).toBe(0);
      expect(dash.problems.join('\n')).toContain(`violates the following Content Security Policy directive: "connect-src`);
      await context.close();
    });
  });
});
