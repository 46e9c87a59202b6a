// Tests of the bridge's protocol layer with a plain JDK (no Ghidra). Run by
// the Go test TestBridgeProtocolJava; exits non-zero on the first failure.

import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

public final class ReaBridgeProtocolTest {
    private static int failures;

    private static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.err.println("FAIL: " + what);
        }
    }

    private static String code(ThrowingRunnable r) {
        try {
            r.run();
            return "none";
        } catch (ReaBridgeProtocol.BridgeException e) {
            return e.code;
        }
    }

    interface ThrowingRunnable {
        void run() throws ReaBridgeProtocol.BridgeException;
    }

    public static void main(String[] args) throws Exception {
        String tok = "a".repeat(64);
        // Requests: exact keys, exact params, token.
        check(code(() -> ReaBridgeProtocol.parseRequest("{\"id\":1,\"token\":\"" + tok + "\",\"method\":\"ping\",\"params\":{}}", tok)).equals("none"), "valid ping");
        check(code(() -> ReaBridgeProtocol.parseRequest("{\"id\":1,\"token\":\"" + tok + "\",\"method\":\"ping\",\"params\":{},\"x\":1}", tok)).equals("invalid_request"), "extra key");
        check(code(() -> ReaBridgeProtocol.parseRequest("{\"id\":1,\"token\":\"b\",\"method\":\"ping\",\"params\":{}}", tok)).equals("invalid_request"), "wrong token");
        check(code(() -> ReaBridgeProtocol.parseRequest("{\"id\":0,\"token\":\"" + tok + "\",\"method\":\"ping\",\"params\":{}}", tok)).equals("invalid_request"), "id 0");
        check(code(() -> ReaBridgeProtocol.parseRequest("{\"id\":1,\"token\":\"" + tok + "\",\"method\":\"list_segments\",\"params\":{}}", tok)).equals("invalid_request"), "missing defaulted key");
        check(code(() -> ReaBridgeProtocol.parseRequest("{\"id\":1,\"token\":\"" + tok + "\",\"method\":\"list_segments\",\"params\":{\"document\":null}}", tok)).equals("none"), "document null");
        check(code(() -> ReaBridgeProtocol.parseRequest("{\"id\":1,\"token\":\"" + tok + "\",\"method\":\"nope\",\"params\":{}}", tok)).equals("invalid_request"), "unknown method");
        check(code(() -> ReaBridgeProtocol.parseRequest("{\"id\":1,\"id\":2,\"token\":\"" + tok + "\",\"method\":\"ping\",\"params\":{}}", tok)).equals("invalid_request"), "duplicate key");
        check(code(() -> ReaBridgeProtocol.parseRequest("[1", tok)).equals("invalid_request"), "malformed");
        check(ReaBridgeProtocol.constantTimeEquals("abc", "abc") && !ReaBridgeProtocol.constantTimeEquals("abc", "abd"), "constant-time compare");

        // Addresses.
        check(ReaBridgeProtocol.formatAddress("ram", 0x401000L, true).equals("0x401000"), "default space");
        check(ReaBridgeProtocol.formatAddress("EXTERNAL", 8, false).equals("EXTERNAL:0x8"), "other space");
        check(ReaBridgeProtocol.formatAddress("a b", 1, false).equals("a%20b:0x1"), "space escape");
        check(ReaBridgeProtocol.parseAddress("0xFFFFFFFFFFFFFFFF").offset == -1L, "64-bit offset");
        check(ReaBridgeProtocol.parseAddress("a%20b:0x10").space.equals("a b"), "space decode");
        check(code(() -> ReaBridgeProtocol.parseAddress("a%2:0x10")).equals("invalid_request"), "bad escape");
        check(code(() -> ReaBridgeProtocol.parseAddress("0x")).equals("invalid_request"), "empty offset");
        check(code(() -> ReaBridgeProtocol.parseAddress("0x10000000000000000")).equals("invalid_request"), "over 64 bits");

        // Replies and limits.
        check(ReaBridgeProtocol.ok(3, null).equals("{\"id\":3,\"ok\":true,\"result\":null}"), "ok with null result");
        check(ReaBridgeProtocol.ok(3, "x".repeat(ReaBridgeProtocol.MAX_RESPONSE_BYTES)).contains("output_limit"), "output limit");
        check(ReaBridgeProtocol.error(2, "not_found", "").contains("\"message\":\"not_found\""), "empty message filled");
        check(ReaBridgeProtocol.error(2, "x", "\u00e9".repeat(5000)).length() < 4200, "message bounded");

        // Descriptor.
        String desc = "{\"schema_version\":2,\"transport\":\"unix-socket\",\"endpoint_path\":\"/t/s\",\"token\":\"" + tok
                + "\",\"run_id\":\"r\",\"target_sha256\":\"" + "0".repeat(64) + "\",\"provider_version\":\"12.1.4\",\"profile_digest\":\"d\"}";
        check(code(() -> ReaBridgeProtocol.parseDescriptor(desc.getBytes(StandardCharsets.UTF_8))).equals("none"), "descriptor");
        check(code(() -> ReaBridgeProtocol.parseDescriptor(desc.replace("\"0000", "\"AAAA").getBytes(StandardCharsets.UTF_8))).equals("invalid_request"), "uppercase sha");
        check(code(() -> ReaBridgeProtocol.parseDescriptor(desc.replace(":2,", ":1,").getBytes(StandardCharsets.UTF_8))).equals("invalid_request"), "schema 1");

        // The serve loop: a handled call, a handler error, shutdown.
        String in = "{\"id\":1,\"token\":\"" + tok + "\",\"method\":\"list_documents\",\"params\":{}}\r\n"
                + "{\"id\":2,\"token\":\"" + tok + "\",\"method\":\"procedure_address\",\"params\":{\"document\":null,\"procedure\":\"x\"}}\n"
                + "{\"id\":3,\"token\":\"" + tok + "\",\"method\":\"shutdown\",\"params\":{}}\n";
        StringWriter out = new StringWriter();
        String why = ReaBridgeProtocol.serve(new BufferedReader(new StringReader(in)), out, tok, (m, p) -> {
            if (m.equals("list_documents")) return java.util.List.of("target.bin");
            throw new ReaBridgeProtocol.BridgeException("not_found", "no procedure x");
        });
        String[] lines = out.toString().split("\n");
        check(why.equals("shutdown"), "serve ends at shutdown: " + why);
        check(lines.length == 3, "three replies");
        check(lines[0].equals("{\"id\":1,\"ok\":true,\"result\":[\"target.bin\"]}"), "first reply: " + lines[0]);
        check(lines[1].startsWith("{\"id\":2,\"ok\":false,\"error\":{\"code\":\"not_found\""), "second reply: " + lines[1]);
        check(lines[2].contains("\"project_ephemeral\":true"), "shutdown reply");

        // An invalid request ends the loop after one error with id 1.
        out = new StringWriter();
        why = ReaBridgeProtocol.serve(new BufferedReader(new StringReader("{\"id\":7}\n")), out, tok, (m, p) -> null);
        check(why.equals("invalid") && out.toString().startsWith("{\"id\":1,\"ok\":false,\"error\":{\"code\":\"invalid_request\""), "invalid request ends the loop");
        // An over-long line ends the loop without a reply.
        out = new StringWriter();
        why = ReaBridgeProtocol.serve(new BufferedReader(new StringReader("x".repeat(ReaBridgeProtocol.MAX_REQUEST_CHARS + 1) + "\n")), out, tok, (m, p) -> null);
        check(why.equals("limit") && out.toString().isEmpty(), "long line ends the loop");

        Map<String, Object> page = ReaBridgeProtocol.page(java.util.List.of(1L, 2L, 3L), 1, 1);
        check(Long.valueOf(2).equals(page.get("next_offset")) && Boolean.TRUE.equals(page.get("has_more")), "page");

        if (failures > 0) {
            System.err.println(failures + " failed");
            System.exit(1);
        }
        System.out.println("bridge protocol: all checks passed");
    }
}
