// The protocol layer of rea's Ghidra bridge: NDJSON framing, the session
// descriptor, request validation (exact keys, exact parameter sets, the
// token compared in constant time), error codes, output limits and address
// text. It uses no Ghidra class, so it compiles and is tested with a plain
// JDK (17+); ReaGhidraBridge supplies the Ghidra-facing handler.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class ReaBridgeProtocol {
    public static final int BRIDGE_VERSION = 6;
    public static final int MAX_REQUEST_CHARS = 262_144;
    public static final int MAX_RESPONSE_BYTES = 1 << 20;
    public static final int MAX_DESCRIPTOR_BYTES = 16 * 1024;

    /** Methods in the order ping reports them, with their exact parameter keys. */
    public static final Map<String, Set<String>> METHODS = new LinkedHashMap<>();
    static {
        m("ping");
        m("shutdown");
        m("address_name", "document", "address");
        m("list_documents");
        m("list_names", "document", "address", "offset", "limit");
        m("list_procedures", "document", "offset", "limit");
        m("list_segments", "document");
        m("list_strings", "document", "address", "offset", "limit");
        m("procedure_address", "document", "procedure");
        m("procedure_info", "document", "procedure");
        m("procedure_pseudo_code", "document", "procedure");
        m("read_bytes", "document", "address", "length");
        m("function_body", "document", "procedure", "max_instructions");
        m("list_references", "document", "offset", "limit");
        m("disassemble", "document", "address", "end", "max_instructions");
        m("native_api", "document", "procedure");
    }

    private static void m(String name, String... keys) {
        METHODS.put(name, new HashSet<>(Arrays.asList(keys)));
    }

    private ReaBridgeProtocol() {}

    /** A failure the bridge answers with {ok:false, error:{code, message}}. */
    public static final class BridgeException extends Exception {
        public final String code;
        public BridgeException(String code, String message) {
            super(message);
            this.code = code;
        }
    }

    /** A validated request. */
    public static final class Request {
        public final long id;
        public final String method;
        public final Map<String, Object> params;
        Request(long id, String method, Map<String, Object> params) {
            this.id = id;
            this.method = method;
            this.params = params;
        }
    }

    /** Answers one validated request; the Ghidra layer implements it. */
    public interface Handler {
        Object handle(String method, Map<String, Object> params) throws BridgeException;
    }

    /** The session descriptor's fields. */
    public static final class Descriptor {
        public String transport, endpointPath, token, runId, targetSha256, providerVersion, profileDigest;
    }

    private static final Set<String> DESCRIPTOR_KEYS = new HashSet<>(Arrays.asList(
            "schema_version", "transport", "endpoint_path", "token", "run_id", "target_sha256",
            "provider_version", "profile_digest"));

    /** Parses a descriptor's bytes: exact keys, schema_version 2, lowercase sha256. */
    public static Descriptor parseDescriptor(byte[] bytes) throws BridgeException {
        if (bytes.length > MAX_DESCRIPTOR_BYTES) {
            throw new BridgeException("invalid_request", "session descriptor is too large");
        }
        Object v = Json.parse(new String(bytes, StandardCharsets.UTF_8).trim());
        if (!(v instanceof Map) || !((Map<?, ?>) v).keySet().equals(DESCRIPTOR_KEYS)) {
            throw new BridgeException("invalid_request", "session descriptor keys differ");
        }
        Map<?, ?> o = (Map<?, ?>) v;
        if (!Long.valueOf(2).equals(o.get("schema_version"))) {
            throw new BridgeException("invalid_request", "session descriptor schema_version is not 2");
        }
        Descriptor d = new Descriptor();
        d.transport = str(o, "transport");
        d.endpointPath = str(o, "endpoint_path");
        d.token = str(o, "token");
        d.runId = str(o, "run_id");
        d.targetSha256 = str(o, "target_sha256");
        d.providerVersion = str(o, "provider_version");
        d.profileDigest = str(o, "profile_digest");
        if (!d.targetSha256.matches("[0-9a-f]{64}") || d.token.isEmpty() || !"unix-socket".equals(d.transport)) {
            throw new BridgeException("invalid_request", "session descriptor values out of shape");
        }
        return d;
    }

    private static String str(Map<?, ?> o, String k) throws BridgeException {
        Object v = o.get(k);
        if (!(v instanceof String)) {
            throw new BridgeException("invalid_request", "session descriptor " + k + " is not a string");
        }
        return (String) v;
    }

    /** Compares two secrets in time independent of where they differ. */
    public static boolean constantTimeEquals(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** Validates one request line against the token. */
    public static Request parseRequest(String line, String token) throws BridgeException {
        Object v;
        try {
            v = Json.parse(line);
        } catch (BridgeException e) {
            throw invalid();
        }
        if (!(v instanceof Map)) throw invalid();
        Map<?, ?> o = (Map<?, ?>) v;
        if (!o.keySet().equals(new HashSet<>(Arrays.asList("id", "token", "method", "params")))) throw invalid();
        Object id = o.get("id"), tok = o.get("token"), method = o.get("method"), params = o.get("params");
        if (!(id instanceof Long) || (Long) id < 1 || !(tok instanceof String) || !(method instanceof String)
                || !(params instanceof Map)) throw invalid();
        if (!constantTimeEquals((String) tok, token)) throw invalid();
        Set<String> keys = METHODS.get(method);
        if (keys == null || !((Map<?, ?>) params).keySet().equals(keys)) throw invalid();
        @SuppressWarnings("unchecked")
        Map<String, Object> p = (Map<String, Object>) params;
        return new Request((Long) id, (String) method, p);
    }

    private static BridgeException invalid() {
        return new BridgeException("invalid_request", "Bridge request is invalid");
    }

    /** Encodes a success reply, replaced by output_limit when over MAX_RESPONSE_BYTES. */
    public static String ok(long id, Object result) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        r.put("ok", true);
        r.put("result", result);
        String s = Json.write(r);
        if (s.getBytes(StandardCharsets.UTF_8).length > MAX_RESPONSE_BYTES) {
            return error(id, "output_limit", "Bridge response exceeds 1 MiB");
        }
        return s;
    }

    /** Encodes an error reply; code 1..128 and message 1..4096 code points. */
    public static String error(long id, String code, String message) {
        if (code == null || code.isEmpty()) code = "bridge_exception";
        if (code.length() > 128) code = code.substring(0, 128);
        if (message == null || message.isEmpty()) message = code;
        if (message.codePointCount(0, message.length()) > 4096) {
            message = message.substring(0, message.offsetByCodePoints(0, 4096));
        }
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("code", code);
        e.put("message", message);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        r.put("ok", false);
        r.put("error", e);
        return Json.write(r);
    }

    /** Reads one line ('\r' ignored); null at EOF; an over-long line is an error. */
    public static String readLine(BufferedReader in) throws IOException, BridgeException {
        StringBuilder sb = new StringBuilder();
        int c;
        boolean any = false;
        while ((c = in.read()) != -1) {
            any = true;
            if (c == '\n') return sb.toString();
            if (c == '\r') continue;
            if (sb.length() >= MAX_REQUEST_CHARS) throw new BridgeException("limit_exceeded", "request line too long");
            sb.append((char) c);
        }
        return any && sb.length() > 0 ? sb.toString() : null;
    }

    /**
     * Serves requests until shutdown, EOF, an over-long line or an invalid
     * request (answered with id 1, then the loop ends). Returns why it ended.
     */
    public static String serve(BufferedReader in, Writer out, String token, Handler h) throws IOException {
        while (true) {
            String line;
            try {
                line = readLine(in);
            } catch (BridgeException e) {
                return "limit";
            }
            if (line == null) return "eof";
            Request r;
            try {
                r = parseRequest(line, token);
            } catch (BridgeException e) {
                out.write(error(1, e.code, e.getMessage()) + "\n");
                out.flush();
                return "invalid";
            }
            String reply;
            if (r.method.equals("shutdown")) {
                Map<String, Object> res = new LinkedHashMap<>();
                res.put("shutdown", true);
                res.put("project_ephemeral", true);
                out.write(ok(r.id, res) + "\n");
                out.flush();
                return "shutdown";
            }
            try {
                reply = ok(r.id, h.handle(r.method, r.params));
            } catch (BridgeException e) {
                reply = error(r.id, e.code, e.getMessage());
            } catch (RuntimeException e) {
                reply = error(r.id, "bridge_exception", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            out.write(reply + "\n");
            out.flush();
        }
    }

    /** Formats an offset in the default space ("0x" lowercase hex) or another ("SPACE:0x..."). */
    public static String formatAddress(String space, long offset, boolean defaultSpace) {
        String hex = "0x" + Long.toUnsignedString(offset, 16);
        if (defaultSpace) return hex;
        StringBuilder sb = new StringBuilder();
        for (byte b : space.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '~' || c == '-') {
                sb.append(c);
            } else {
                sb.append(String.format("%%%02X", b & 0xff));
            }
        }
        return sb.append(':').append(hex).toString();
    }

    /** A parsed address: space null for the default space. */
    public static final class Address {
        public final String space;
        public final long offset;
        Address(String space, long offset) {
            this.space = space;
            this.offset = offset;
        }
    }

    /** Parses address text; anything out of shape is invalid_request. */
    public static Address parseAddress(String s) throws BridgeException {
        String space = null, off = s;
        int i = s.lastIndexOf(":0x");
        if (i >= 0) {
            space = decodeSpace(s.substring(0, i));
            off = s.substring(i + 3);
        } else if (s.startsWith("0x")) {
            off = s.substring(2);
        }
        if (!off.matches("[0-9A-Fa-f]{1,16}")) throw new BridgeException("invalid_request", "address is invalid");
        return new Address(space, Long.parseUnsignedLong(off, 16));
    }

    private static String decodeSpace(String s) throws BridgeException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length() || !s.substring(i + 1, i + 3).matches("[0-9A-F]{2}")) {
                    throw new BridgeException("invalid_request", "address space escape is invalid");
                }
                b.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else if (c < 0x80) {
                b.write(c);
            } else {
                throw new BridgeException("invalid_request", "address space is invalid");
            }
        }
        if (b.size() == 0) throw new BridgeException("invalid_request", "address space is empty");
        return new String(b.toByteArray(), StandardCharsets.UTF_8);
    }

    /** Reads an optional integer parameter within [min, max]. */
    public static long intParam(Map<String, Object> p, String k, long min, long max) throws BridgeException {
        Object v = p.get(k);
        if (!(v instanceof Long) || (Long) v < min || (Long) v > max) {
            throw new BridgeException("invalid_request", k + " must be an integer from " + min + " to " + max);
        }
        return (Long) v;
    }

    /** A document parameter: null or the program's name. */
    public static void checkDocument(Map<String, Object> p, String programName) throws BridgeException {
        Object d = p.get("document");
        if (d == null) return;
        if (!(d instanceof String) || ((String) d).isEmpty() || ((String) d).length() > 4096) {
            throw new BridgeException("invalid_request", "document must be null or a 1..4096 character name");
        }
        if (!d.equals(programName)) throw new BridgeException("not_found", "no document named " + d);
    }

    /** A page {items, offset, limit, total, next_offset, has_more} of all. */
    public static Map<String, Object> page(List<?> all, long offset, long limit) {
        int from = (int) Math.min(offset, all.size());
        int to = (int) Math.min(all.size(), from + limit);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("items", new ArrayList<>(all.subList(from, to)));
        r.put("offset", offset);
        r.put("limit", limit);
        r.put("total", (long) all.size());
        boolean more = to < all.size();
        r.put("next_offset", more ? (Object) (long) to : null);
        r.put("has_more", more);
        return r;
    }

    // native_api's caps (PROVIDERS.md §1.9) and its size budget in UTF-8
    // bytes: min(192 KiB, 1 MiB - size - 32 KiB), taken here at its upper
    // bound since the bridge answers native_api on its own.
    public static final int MAX_NATIVE_PARAMETERS = 64;
    public static final int MAX_JUMP_TABLES = 4;
    public static final int MAX_DATA_SOURCES = 4;
    public static final int MAX_MAPPINGS = 32;
    public static final int NATIVE_API_BUDGET = 192 * 1024;
    public static final int MAX_VALUE_CODE_POINTS = 1024;

    /** One jump table as the Ghidra layer read it, before capping. */
    public static final class JumpTableData {
        public final String switchAddress;
        public final List<Map<String, Object>> dataSources;
        public final List<Map<String, Object>> mappings;

        public JumpTableData(String switchAddress, List<Map<String, Object>> dataSources, List<Map<String, Object>> mappings) {
            this.switchAddress = switchAddress;
            this.dataSources = dataSources;
            this.mappings = mappings;
        }
    }

    /** A string value cut to 1,024 code points (null stays null). */
    public static String clip(String v) {
        if (v == null || v.codePointCount(0, v.length()) <= MAX_VALUE_CODE_POINTS) return v;
        return v.substring(0, v.offsetByCodePoints(0, MAX_VALUE_CODE_POINTS));
    }

    /** native_api when nothing describes the procedure. */
    public static Map<String, Object> nativeApiUnavailable(String reason) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("available", false);
        r.put("reason", reason);
        r.put("residual_unknowns", new ArrayList<>(List.of("parameters", "return_type")));
        return r;
    }

    /**
     * native_api from the decompiler's view of a procedure: the prototype and
     * jump tables, capped at 64 parameters and 4 tables of at most 4 data
     * sources and 32 mappings each, every list with its total and a
     * *_truncated flag, then cut further (mappings first, then parameters,
     * last entries first) until it fits NATIVE_API_BUDGET.
     */
    public static Map<String, Object> nativeApi(String callingConvention, String returnType, boolean variadic,
            List<Map<String, Object>> parameters, List<JumpTableData> tables) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("available", true);
        r.put("provenance", "ghidra-high-function");
        r.put("calling_convention", clip(callingConvention));
        r.put("return_type", clip(returnType));
        r.put("variadic", variadic);
        List<Map<String, Object>> params = new ArrayList<>(parameters.subList(0, Math.min(parameters.size(), MAX_NATIVE_PARAMETERS)));
        r.put("parameters", params);
        r.put("parameters_total", (long) parameters.size());
        r.put("parameters_truncated", params.size() < parameters.size());
        List<Map<String, Object>> jts = new ArrayList<>();
        for (JumpTableData t : tables.subList(0, Math.min(tables.size(), MAX_JUMP_TABLES))) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("switch_address", t.switchAddress);
            List<Map<String, Object>> ds = new ArrayList<>(t.dataSources.subList(0, Math.min(t.dataSources.size(), MAX_DATA_SOURCES)));
            j.put("data_sources", ds);
            j.put("data_sources_total", (long) t.dataSources.size());
            j.put("data_sources_truncated", ds.size() < t.dataSources.size());
            List<Map<String, Object>> ms = new ArrayList<>(t.mappings.subList(0, Math.min(t.mappings.size(), MAX_MAPPINGS)));
            j.put("mappings", ms);
            j.put("mappings_total", (long) t.mappings.size());
            j.put("mappings_truncated", ms.size() < t.mappings.size());
            jts.add(j);
        }
        r.put("jump_tables", jts);
        r.put("jump_tables_total", (long) tables.size());
        r.put("jump_tables_truncated", jts.size() < tables.size());
        Map<String, Object> pc = new LinkedHashMap<>();
        pc.put("classification", "decompiler-generated-non-source");
        pc.put("compilable", false);
        r.put("pseudocode", pc);
        r.put("limitations", new ArrayList<>(List.of(
                "Ghidra's decompiler inferred these parameters, types and jump tables (HighFunction); they are not source declarations.",
                "An indirect or computed jump whose targets Ghidra did not recover has no jump table here.")));
        long size = utf8(Json.write(r));
        // Drop the last mapping of the table with the most, then the last
        // parameter, until the result fits; each removal is accounted by
        // the item's own size, so this stays linear.
        while (size > NATIVE_API_BUDGET) {
            Map<String, Object> most = null;
            for (Map<String, Object> j : jts) {
                if (!((List<?>) j.get("mappings")).isEmpty() && (most == null || ((List<?>) j.get("mappings")).size() > ((List<?>) most.get("mappings")).size())) most = j;
            }
            List<?> from;
            if (most != null) {
                from = (List<?>) most.get("mappings");
                most.put("mappings_truncated", true);
            } else if (!params.isEmpty()) {
                from = params;
                r.put("parameters_truncated", true);
            } else {
                break;
            }
            size -= utf8(Json.write(from.remove(from.size() - 1))) + 1;
        }
        return r;
    }

    private static long utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Minimal strict JSON: objects (LinkedHashMap), arrays, strings, Long, Double, Boolean, null. */
    public static final class Json {
        private final String s;
        private int i;
        private int depth;

        private Json(String s) {
            this.s = s;
        }

        public static Object parse(String s) throws BridgeException {
            Json j = new Json(s);
            Object v = j.value();
            j.ws();
            if (j.i != s.length()) throw bad();
            return v;
        }

        private static BridgeException bad() {
            return new BridgeException("invalid_request", "malformed JSON");
        }

        private void ws() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
        }

        private Object value() throws BridgeException {
            ws();
            if (i >= s.length()) throw bad();
            char c = s.charAt(i);
            switch (c) {
                case '{': return object();
                case '[': return array();
                case '"': return string();
                case 't': return lit("true", Boolean.TRUE);
                case 'f': return lit("false", Boolean.FALSE);
                case 'n': return lit("null", null);
                default: return number();
            }
        }

        private Object lit(String w, Object v) throws BridgeException {
            if (!s.startsWith(w, i)) throw bad();
            i += w.length();
            return v;
        }

        private Map<String, Object> object() throws BridgeException {
            if (++depth > 64) throw bad();
            i++;
            Map<String, Object> m = new LinkedHashMap<>();
            ws();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                depth--;
                return m;
            }
            while (true) {
                ws();
                if (i >= s.length() || s.charAt(i) != '"') throw bad();
                String k = string();
                ws();
                if (i >= s.length() || s.charAt(i++) != ':') throw bad();
                if (m.containsKey(k)) throw bad();
                m.put(k, value());
                ws();
                if (i >= s.length()) throw bad();
                char c = s.charAt(i++);
                if (c == '}') break;
                if (c != ',') throw bad();
            }
            depth--;
            return m;
        }

        private List<Object> array() throws BridgeException {
            if (++depth > 64) throw bad();
            i++;
            List<Object> a = new ArrayList<>();
            ws();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                depth--;
                return a;
            }
            while (true) {
                a.add(value());
                ws();
                if (i >= s.length()) throw bad();
                char c = s.charAt(i++);
                if (c == ']') break;
                if (c != ',') throw bad();
            }
            depth--;
            return a;
        }

        private String string() throws BridgeException {
            i++;
            StringBuilder sb = new StringBuilder();
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') return sb.toString();
                if (c < 0x20) throw bad();
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (i >= s.length()) throw bad();
                char e = s.charAt(i++);
                switch (e) {
                    case '"': case '\\': case '/': sb.append(e); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length() || !s.substring(i, i + 4).matches("[0-9A-Fa-f]{4}")) throw bad();
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: throw bad();
                }
            }
            throw bad();
        }

        private Object number() throws BridgeException {
            int start = i;
            if (i < s.length() && s.charAt(i) == '-') i++;
            while (i < s.length() && "0123456789.eE+-".indexOf(s.charAt(i)) >= 0) i++;
            String t = s.substring(start, i);
            if (!t.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) throw bad();
            if (t.matches("-?(0|[1-9][0-9]*)") && t.length() <= 18) return Long.parseLong(t);
            return Double.parseDouble(t);
        }

        public static String write(Object v) {
            StringBuilder sb = new StringBuilder();
            write(sb, v);
            return sb.toString();
        }

        private static void write(StringBuilder sb, Object v) {
            if (v == null) {
                sb.append("null");
            } else if (v instanceof String) {
                quote(sb, (String) v);
            } else if (v instanceof Boolean || v instanceof Long || v instanceof Integer) {
                sb.append(v);
            } else if (v instanceof Number) {
                double d = ((Number) v).doubleValue();
                sb.append(Double.isFinite(d) ? Double.toString(d) : "null");
            } else if (v instanceof Map) {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (!first) sb.append(',');
                    first = false;
                    quote(sb, String.valueOf(e.getKey()));
                    sb.append(':');
                    write(sb, e.getValue());
                }
                sb.append('}');
            } else if (v instanceof List) {
                sb.append('[');
                boolean first = true;
                for (Object o : (List<?>) v) {
                    if (!first) sb.append(',');
                    first = false;
                    write(sb, o);
                }
                sb.append(']');
            } else {
                quote(sb, v.toString());
            }
        }

        private static void quote(StringBuilder sb, String s) {
            sb.append('"');
            for (int k = 0; k < s.length(); k++) {
                char c = s.charAt(k);
                switch (c) {
                    case '"': sb.append("\\\""); break;
                    case '\\': sb.append("\\\\"); break;
                    case '\n': sb.append("\\n"); break;
                    case '\r': sb.append("\\r"); break;
                    case '\t': sb.append("\\t"); break;
                    default:
                        if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                        else sb.append(c);
                }
            }
            sb.append('"');
        }
    }
}
