import type { LookupAddress } from "node:dns";
import { networkInterfaces } from "node:os";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import { startRedirectingServer, type RedirectingServer } from "../support/redirecting-server.ts";
import { addressRefusal, FileFetchError, fetchPublicFile, guardedLookup, refusalReason } from "../../functions/shared/fetch/public-url.ts";

// The guard as deployed: no switch that turns it off, no allowed networks.
beforeEach(() => {
  delete process.env[ENV.allowPrivateFileUrls];
  delete process.env[ENV.fileUrlAllowedNetworks];
});
afterEach(() => {
  delete process.env[ENV.fileUrlAllowedNetworks];
});

const PUBLIC_ADDRESSES = [
  "8.8.8.8",
  "1.1.1.1",
  "11.0.0.1",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.0.1.1",
  "192.169.0.1",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001:80b::200e",
  // IPv4 forms inside IPv6 reach the IPv4 address they carry: public here.
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "::ffff:0:8.8.8.8",
  "64:ff9b::8.8.8.8",
  "2002:808:808::1",
  "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // Teredo, client 8.8.8.8
];

const NON_PUBLIC_ADDRESSES = [
  "0.0.0.0",
  "0.1.2.3",
  "10.0.0.1",
  "10.255.255.255",
  "100.64.0.1",
  "100.127.255.255",
  "127.0.0.1",
  "127.255.255.254",
  "169.254.169.254",
  "169.254.0.1",
  "172.16.0.1",
  "172.31.255.255",
  "192.0.0.170",
  "192.0.2.1",
  "192.88.99.1",
  "192.168.1.1",
  "198.18.0.1",
  "198.19.255.255",
  "198.51.100.7",
  "203.0.113.9",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  "::",
  "::1",
  "::127.0.0.1",
  "::8.8.8.8",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:169.254.169.254",
  "::ffff:10.0.0.1",
  "::ffff:0:127.0.0.1",
  "::ffff:0:a9fe:a9fe",
  "64:ff9b::127.0.0.1",
  "64:ff9b::a9fe:a9fe",
  "64:ff9b:1::808:808",
  "2002:7f00:1::1",
  "2002:a9fe:a9fe::",
  "2002:c0a8:101::1",
  "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo, client 127.0.0.1
  "2001:0:7f00:1:8000:63bf:f7f7:f7f7", // Teredo, server 127.0.0.1
  "100::1",
  "fc00::1",
  "fd00::2",
  "fd00:ec2::254",
  "fe80::1",
  "fe80::1%eth0",
  "fec0::1",
  "ff02::1",
  "ff0e::1",
  "2001:db8::1",
  "2001:2::1",
  "2001:10::1",
  "3fff::1",
  "5f00::1",
];

describe("the FILE URL guard, addresses", () => {
  it.each(PUBLIC_ADDRESSES)("lets %s through", (address) => {
    expect(addressRefusal(address)).toBeNull();
  });

  it.each(NON_PUBLIC_ADDRESSES)("refuses %s", (address) => {
    expect(addressRefusal(address)).not.toBeNull();
  });

  it("refuses this machine's own interface addresses, even inside an allowed network", () => {
    process.env[ENV.fileUrlAllowedNetworks] = "0.0.0.0/0,::/0";
    const own = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []);
    expect(own.length).toBeGreaterThan(0);
    for (const entry of own) {
      expect(addressRefusal(entry.address), entry.address).toBe("this machine");
      if (entry.family === "IPv4") expect(addressRefusal(`::ffff:${entry.address}`), entry.address).toBe("this machine");
    }
    expect(addressRefusal("127.0.0.2")).toBeNull();
    expect(addressRefusal("8.8.8.8")).toBeNull();
  });

  it("allows exactly the configured networks", () => {
    process.env[ENV.fileUrlAllowedNetworks] = " 127.0.0.2/32, 10.1.0.0/16 ,fd12::/16";
    expect(addressRefusal("127.0.0.2")).toBeNull();
    expect(addressRefusal("10.1.200.3")).toBeNull();
    expect(addressRefusal("::ffff:10.1.200.3")).toBeNull();
    expect(addressRefusal("fd12::7")).toBeNull();
    expect(addressRefusal("127.0.0.3")).not.toBeNull();
    expect(addressRefusal("10.2.0.1")).not.toBeNull();
    expect(addressRefusal("fd13::7")).not.toBeNull();
  });

  it("reports a malformed allowed network as a configuration error", () => {
    process.env[ENV.fileUrlAllowedNetworks] = "127.0.0.2/33";
    expect(() => addressRefusal("8.8.8.8")).toThrow(/127.0.0.2\/33/);
    process.env[ENV.fileUrlAllowedNetworks] = "intranet";
    expect(() => addressRefusal("8.8.8.8")).toThrow(/intranet/);
  });
});

describe("the FILE URL guard, URLs at request time", () => {
  it.each(["http://8.8.8.8/x.txt", "https://example.com/a.md", "http://[2606:4700:4700::1111]/x", "http://[::ffff:8.8.8.8]/x"])(
    "accepts %s",
    (url) => {
      expect(refusalReason(url)).toBeNull();
    },
  );

  it.each([
    "http://localhost/x",
    "http://localhost./x",
    "http://LOCALHOST../x",
    "http://api.localhost./x",
    "http://127.0.0.1:8080/x",
    "http://[::1]/x",
    "http://[::127.0.0.1]/x",
    "http://[::ffff:0:127.0.0.1]/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://[64:ff9b::127.0.0.1]/x",
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://2130706433/x",
    "http://0x7f.1/x",
    "http://0177.0.0.1/x",
    "http://0/x",
    "http://192.168.0.1./x",
  ])("refuses %s", (url) => {
    expect(refusalReason(url)).toMatch(/^the URL points at /);
  });

  it("lets every address through only with the legacy switch for tests", () => {
    process.env[ENV.allowPrivateFileUrls] = "true";
    try {
      expect(refusalReason("http://127.0.0.1/x")).toBeNull();
    } finally {
      delete process.env[ENV.allowPrivateFileUrls];
    }
  });
});

function lookup(hostname: string, options: { all?: boolean } = {}): Promise<string[]> {
  return new Promise((resolve, reject) => {
    guardedLookup(hostname, options, (error, address) => {
      if (error) return reject(error);
      resolve(Array.isArray(address) ? address.map((entry: LookupAddress) => entry.address) : [address]);
    });
  });
}

describe("the FILE URL guard, at connection time", () => {
  it("connects to a public address", async () => {
    expect(await lookup("8.8.8.8")).toEqual(["8.8.8.8"]);
    expect(await lookup("2606:4700:4700::1111", { all: true })).toEqual(["2606:4700:4700::1111"]);
  });

  it.each(["localhost", "localhost.", "127.0.0.1", "::ffff:127.0.0.1", "169.254.169.254"])("refuses to connect to %s", async (hostname) => {
    await expect(lookup(hostname, { all: true })).rejects.toMatchObject({ code: "EPRIVATE" });
  });
});

describe("fetching a FILE URL", () => {
  let server: RedirectingServer;
  let origin = "";
  beforeAll(async () => {
    server = await startRedirectingServer({ "/file.txt": { contentType: "text/plain", body: "served from 127.0.0.2" } }, (port) => ({
      "/same-host": "/file.txt",
      "/two-hops": "/same-host",
      "/to-loopback": `http://127.0.0.1:${port}/file.txt`,
      "/to-localhost": `http://localhost.:${port}/file.txt`,
      "/to-mapped": `http://[::ffff:127.0.0.1]:${port}/file.txt`,
      "/to-metadata": "http://169.254.169.254/latest/meta-data/",
      "/later-to-loopback": "/to-loopback",
      "/to-nowhere": "http://[::1/",
    }));
    origin = server.origin;
  });
  afterAll(() => server.close());
  beforeEach(() => {
    process.env[ENV.fileUrlAllowedNetworks] = "127.0.0.2/32";
  });

  it("refuses the test server while its address is not allowed", async () => {
    delete process.env[ENV.fileUrlAllowedNetworks];
    await expect(fetchPublicFile(`${origin}/file.txt`, 1000)).rejects.toThrow(FileFetchError);
  });

  it("fetches from an allowed address and follows redirects that stay allowed", async () => {
    const fetched = await fetchPublicFile(`${origin}/two-hops`, 1000);
    expect(Buffer.from(fetched.bytes).toString()).toBe("served from 127.0.0.2");
    expect(fetched.finalUrl).toBe(`${origin}/file.txt`);
  });

  it.each(["/to-loopback", "/to-localhost", "/to-mapped", "/to-metadata", "/later-to-loopback"])(
    "re-checks every redirect hop: %s is refused",
    async (path) => {
      await expect(fetchPublicFile(`${origin}${path}`, 1000)).rejects.toThrow(/refused to fetch .*: the URL points at/);
    },
  );

  it("fails with the caller's error when a redirect is not a URL", async () => {
    await expect(fetchPublicFile(`${origin}/to-nowhere`, 1000)).rejects.toThrow(FileFetchError);
  });
});
