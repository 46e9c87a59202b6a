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

        // native_api: caps with totals and truncation flags, then the budget.
        java.util.List<Map<String, Object>> params = new java.util.ArrayList<>();
        for (int i = 0; i < 70; i++) params.add(new LinkedHashMap<>(Map.of("name", "p" + i, "type", "int", "storage", "RDI:8")));
        java.util.List<ReaBridgeProtocol.JumpTableData> tables = new java.util.ArrayList<>();
        for (int t = 0; t < 6; t++) {
            java.util.List<Map<String, Object>> ds = new java.util.ArrayList<>();
            for (int i = 0; i < (t == 0 ? 5 : 1); i++) ds.add(new LinkedHashMap<>(Map.of("address", "0x2000", "entry_size", 4L, "entries", 40L)));
            java.util.List<Map<String, Object>> ms = new java.util.ArrayList<>();
            for (int i = 0; i < (t == 0 ? 40 : 3); i++) ms.add(new LinkedHashMap<>(Map.of("value", (long) i, "target", "0x10" + i)));
            tables.add(new ReaBridgeProtocol.JumpTableData("0x100" + t, ds, ms));
        }
        Map<String, Object> api = ReaBridgeProtocol.nativeApi("__stdcall", "int", false, params, tables);
        check(Boolean.TRUE.equals(api.get("available")) && "ghidra-high-function".equals(api.get("provenance")), "native_api available from the HighFunction");
        check(((java.util.List<?>) api.get("parameters")).size() == 64 && Long.valueOf(70).equals(api.get("parameters_total")) && Boolean.TRUE.equals(api.get("parameters_truncated")), "parameters capped at 64");
        java.util.List<?> jts = (java.util.List<?>) api.get("jump_tables");
        check(jts.size() == 4 && Long.valueOf(6).equals(api.get("jump_tables_total")) && Boolean.TRUE.equals(api.get("jump_tables_truncated")), "jump tables capped at 4");
        Map<?, ?> j0 = (Map<?, ?>) jts.get(0), j1 = (Map<?, ?>) jts.get(1);
        check(((java.util.List<?>) j0.get("data_sources")).size() == 4 && Boolean.TRUE.equals(j0.get("data_sources_truncated")) && Long.valueOf(5).equals(j0.get("data_sources_total")), "data sources capped at 4");
        check(((java.util.List<?>) j0.get("mappings")).size() == 32 && Boolean.TRUE.equals(j0.get("mappings_truncated")) && Long.valueOf(40).equals(j0.get("mappings_total")), "mappings capped at 32");
        check(((java.util.List<?>) j1.get("mappings")).size() == 3 && Boolean.FALSE.equals(j1.get("mappings_truncated")) && Boolean.FALSE.equals(j1.get("data_sources_truncated")), "a small table is whole");
        String lim = String.join(" ", (java.util.List<String>) api.get("limitations"));
        check(lim.matches("(?s).*(indirect|computed).*") && lim.matches("(?s).*(provider|Ghidra|Hopper).*"), "limitations name computed jumps and Ghidra");
        Map<?, ?> pc = (Map<?, ?>) api.get("pseudocode");
        check("decompiler-generated-non-source".equals(pc.get("classification")) && Boolean.FALSE.equals(pc.get("compilable")), "pseudocode classification");
        check(ReaBridgeProtocol.Json.write(api).getBytes(StandardCharsets.UTF_8).length <= ReaBridgeProtocol.NATIVE_API_BUDGET, "within budget");
        // Values are cut to 1,024 code points, and the budget cuts mappings
        // before parameters.
        String big = "\u00e9".repeat(5000);
        check(ReaBridgeProtocol.clip(big).codePointCount(0, ReaBridgeProtocol.clip(big).length()) == 1024 && ReaBridgeProtocol.clip(null) == null, "clip");
        java.util.List<Map<String, Object>> fat = new java.util.ArrayList<>();
        for (int i = 0; i < 64; i++) fat.add(new LinkedHashMap<>(Map.of("name", ReaBridgeProtocol.clip(big), "type", ReaBridgeProtocol.clip(big), "storage", "RDI:8")));
        java.util.List<Map<String, Object>> fatMaps = new java.util.ArrayList<>();
        for (int i = 0; i < 32; i++) fatMaps.add(new LinkedHashMap<>(Map.of("value", (long) i, "target", "0x1")));
        api = ReaBridgeProtocol.nativeApi(ReaBridgeProtocol.clip(big), "int", true, fat, java.util.List.of(new ReaBridgeProtocol.JumpTableData("0x1", java.util.List.of(), fatMaps)));
        int bytes = ReaBridgeProtocol.Json.write(api).getBytes(StandardCharsets.UTF_8).length;
        Map<?, ?> only = (Map<?, ?>) ((java.util.List<?>) api.get("jump_tables")).get(0);
        check(bytes <= ReaBridgeProtocol.NATIVE_API_BUDGET, "a fat prototype is cut to the budget: " + bytes);
        check(((java.util.List<?>) only.get("mappings")).isEmpty() && Boolean.TRUE.equals(only.get("mappings_truncated")), "mappings go first");
        int kept = ((java.util.List<?>) api.get("parameters")).size();
        check(kept > 0 && kept < 64 && Boolean.TRUE.equals(api.get("parameters_truncated")), "then parameters: kept " + kept);
        Map<String, Object> un = ReaBridgeProtocol.nativeApiUnavailable("no body");
        check(Boolean.FALSE.equals(un.get("available")) && ((java.util.List<?>) un.get("residual_unknowns")).size() == 2, "unavailable");
        check(ReaBridgeProtocol.METHODS.containsKey("native_api") && ReaBridgeProtocol.METHODS.get("native_api").equals(new java.util.HashSet<>(java.util.List.of("document", "procedure"))), "native_api params");

        if (failures > 0) {
            System.err.println(failures + " failed");
            System.exit(1);
        }
        System.out.println("bridge protocol: all checks passed");
    }
}
