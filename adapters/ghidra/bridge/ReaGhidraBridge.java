// rea's Ghidra bridge, run by analyzeHeadless as a post-script after
// auto-analysis. It reads the session descriptor (its only argument, deleted
// after reading), checks the program against it, serves one client on a
// Unix socket with ReaBridgeProtocol, and touches the Program from this one
// thread only. This layer needs Ghidra's jars to run (the live lane); the
// Go test TestBridgeCompilesAgainstGhidraAPI type-checks it against
// declarations of the Ghidra 12.1 API (testdata/ghidra-api-stubs), and the
// protocol layer is tested with a plain JDK.
//@category rea

import java.io.BufferedReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.io.InputStreamReader;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import ghidra.app.decompiler.DecompInterface;
import ghidra.app.decompiler.DecompileOptions;
import ghidra.app.decompiler.DecompileResults;
import ghidra.app.util.headless.HeadlessScript;
import ghidra.framework.Application;
import ghidra.program.model.address.Address;
import ghidra.program.model.data.StringDataInstance;
import ghidra.program.model.listing.Data;
import ghidra.program.model.listing.Function;
import ghidra.program.model.mem.MemoryBlock;
import ghidra.program.model.mem.MemoryBlockSourceInfo;
import ghidra.program.model.pcode.FunctionPrototype;
import ghidra.program.model.pcode.HighFunction;
import ghidra.program.model.pcode.HighSymbol;
import ghidra.program.model.pcode.JumpTable;
import ghidra.program.model.symbol.Symbol;
import ghidra.program.util.DefinedStringIterator;

public class ReaGhidraBridge extends HeadlessScript {
    private static final int DECOMPILE_SECONDS = 30;
    private static final int MAX_INVENTORY = 1_000_000;
    private static final int MAX_READ = 256 * 1024;

    private DecompInterface decompiler;
    private List<Map<String, Object>> procedures, names, strings, references;

    @Override
    protected void run() throws Exception {
        String[] args = getScriptArgs();
        if (args.length != 1) throw new IllegalArgumentException("the bridge takes the session descriptor only");
        Path descPath = Path.of(args[0]);
        if (!Files.isRegularFile(descPath, LinkOption.NOFOLLOW_LINKS)) throw new IllegalArgumentException("descriptor is not a regular file");
        ReaBridgeProtocol.Descriptor d = ReaBridgeProtocol.parseDescriptor(Files.readAllBytes(descPath));
        Files.delete(descPath);
        if (currentProgram == null) throw new IllegalStateException("no program was imported");
        if (!Application.getApplicationVersion().equals(d.providerVersion)) throw new IllegalStateException("Ghidra version differs from the session's");
        String sha = currentProgram.getExecutableSHA256();
        if (sha == null || !ReaBridgeProtocol.constantTimeEquals(sha.toLowerCase(java.util.Locale.ROOT), d.targetSha256)) {
            throw new IllegalStateException("the imported program is not the session's target");
        }
        decompiler = new DecompInterface();
        DecompileOptions opts = new DecompileOptions();
        opts.setMaxPayloadMBytes(8);
        opts.setMaxInstructions(100_000);
        decompiler.setOptions(opts);
        decompiler.toggleCCode(true);
        decompiler.toggleSyntaxTree(true);
        decompiler.openProgram(currentProgram);
        Path sock = Path.of(d.endpointPath);
        Files.deleteIfExists(sock);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(sock));
            Files.setPosixFilePermissions(sock, PosixFilePermissions.fromString("rw-------"));
            try (SocketChannel ch = server.accept()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
                Writer out = new OutputStreamWriter(Channels.newOutputStream(ch), StandardCharsets.UTF_8);
                ReaBridgeProtocol.serve(in, out, d.token, (m, p) -> handle(d, m, p));
            }
        } finally {
            Files.deleteIfExists(sock);
            decompiler.dispose();
        }
    }

    private Object handle(ReaBridgeProtocol.Descriptor d, String method, Map<String, Object> p) throws ReaBridgeProtocol.BridgeException {
        boolean timedOut = analysisTimeoutOccurred();
        if (method.equals("ping")) return ping(d, timedOut);
        if (timedOut) throw new ReaBridgeProtocol.BridgeException("analysis_incomplete", "Ghidra auto-analysis timed out");
        if (p.containsKey("document")) ReaBridgeProtocol.checkDocument(p, currentProgram.getName());
        switch (method) {
            case "list_documents": return List.of(currentProgram.getName());
            case "list_segments": return segments();
            case "list_procedures": return ReaBridgeProtocol.page(procedures(), ReaBridgeProtocol.intParam(p, "offset", 0, Integer.MAX_VALUE), ReaBridgeProtocol.intParam(p, "limit", 1, 500));
            case "list_names": return ReaBridgeProtocol.page(names(), ReaBridgeProtocol.intParam(p, "offset", 0, Integer.MAX_VALUE), ReaBridgeProtocol.intParam(p, "limit", 1, 500));
            case "list_strings": return ReaBridgeProtocol.page(strings(), ReaBridgeProtocol.intParam(p, "offset", 0, Integer.MAX_VALUE), ReaBridgeProtocol.intParam(p, "limit", 1, 500));
            case "address_name": {
                Symbol s = currentProgram.getSymbolTable().getPrimarySymbol(address(p.get("address")));
                return s == null ? null : s.getName(true);
            }
            case "procedure_address": return fmt(procedure(p.get("procedure")).getEntryPoint());
            case "procedure_info": return info(procedure(p.get("procedure")));
            case "list_references": return ReaBridgeProtocol.page(references(), ReaBridgeProtocol.intParam(p, "offset", 0, Integer.MAX_VALUE), ReaBridgeProtocol.intParam(p, "limit", 1, 500));
            case "disassemble": return disassemble(address(p.get("address")), address(p.get("end")), (int) ReaBridgeProtocol.intParam(p, "max_instructions", 1, 4096));
            case "function_body": return body(procedure(p.get("procedure")), (int) ReaBridgeProtocol.intParam(p, "max_instructions", 1, 100_000));
            case "procedure_pseudo_code": return decompile(procedure(p.get("procedure")));
            case "native_api": return nativeApi(procedure(p.get("procedure")));
            case "read_bytes": return readBytes(address(p.get("address")), (int) ReaBridgeProtocol.intParam(p, "length", 1, MAX_READ));
            default: throw new ReaBridgeProtocol.BridgeException("method_unavailable", method + " is not implemented by this bridge");
        }
    }

    private Map<String, Object> ping(ReaBridgeProtocol.Descriptor d, boolean timedOut) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("name", "REA Ghidra bridge");
        r.put("bridge_version", (long) ReaBridgeProtocol.BRIDGE_VERSION);
        r.put("run_id", d.runId);
        r.put("profile_digest", d.profileDigest);
        r.put("provider", new LinkedHashMap<>(Map.of("id", "ghidra", "version", Application.getApplicationVersion())));
        r.put("read_only", true);
        r.put("analysis_complete", !timedOut);
        r.put("analysis_timed_out", timedOut);
        r.put("capabilities", new ArrayList<>(ReaBridgeProtocol.METHODS.keySet()));
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", currentProgram.getName());
        t.put("language_id", currentProgram.getLanguageID().getIdAsString());
        t.put("compiler_spec_id", currentProgram.getCompilerSpec().getCompilerSpecID().getIdAsString());
        t.put("image_base", fmt(currentProgram.getImageBase()));
        t.put("default_address_space", currentProgram.getAddressFactory().getDefaultAddressSpace().getName());
        t.put("sha256", currentProgram.getExecutableSHA256().toLowerCase(java.util.Locale.ROOT));
        r.put("target", t);
        return r;
    }

    private String fmt(Address a) {
        boolean def = a.getAddressSpace().equals(currentProgram.getAddressFactory().getDefaultAddressSpace());
        return ReaBridgeProtocol.formatAddress(a.getAddressSpace().getName(), a.getOffset(), def);
    }

    private Address address(Object o) throws ReaBridgeProtocol.BridgeException {
        if (!(o instanceof String)) throw new ReaBridgeProtocol.BridgeException("invalid_request", "address must be a string");
        ReaBridgeProtocol.Address a = ReaBridgeProtocol.parseAddress((String) o);
        var space = a.space == null ? currentProgram.getAddressFactory().getDefaultAddressSpace() : currentProgram.getAddressFactory().getAddressSpace(a.space);
        if (space == null) throw new ReaBridgeProtocol.BridgeException("invalid_request", "unknown address space");
        try {
            return space.getAddress(a.offset);
        } catch (Exception e) {
            throw new ReaBridgeProtocol.BridgeException("invalid_request", "address out of its space");
        }
    }

    private Function procedure(Object o) throws ReaBridgeProtocol.BridgeException {
        if (!(o instanceof String) || ((String) o).isEmpty() || ((String) o).length() > 4096) {
            throw new ReaBridgeProtocol.BridgeException("invalid_request", "procedure must be a 1..4096 character string");
        }
        try {
            Address a = address(o);
            Function f = currentProgram.getFunctionManager().getFunctionAt(a);
            if (f == null && a.isMemoryAddress()) f = currentProgram.getFunctionManager().getFunctionContaining(a);
            if (f == null) throw new ReaBridgeProtocol.BridgeException("not_found", "no procedure at " + o);
            return f;
        } catch (ReaBridgeProtocol.BridgeException e) {
            if (e.code.equals("not_found")) throw e;
        }
        List<Function> found = new ArrayList<>();
        for (Function f : currentProgram.getFunctionManager().getFunctions(true)) {
            if (f.getName().equals(o) || f.getName(true).equals(o)) found.add(f);
        }
        if (found.isEmpty()) throw new ReaBridgeProtocol.BridgeException("not_found", "no procedure named " + o);
        if (found.size() > 1) throw new ReaBridgeProtocol.BridgeException("ambiguous", found.size() + " procedures are named " + o);
        return found.get(0);
    }

    private List<Object> segments() {
        List<Object> out = new ArrayList<>();
        for (MemoryBlock b : currentProgram.getMemory().getBlocks()) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", b.getName());
            s.put("start", fmt(b.getStart()));
            s.put("end", fmt(b.getEnd().add(1)));
            s.put("readable", b.isRead());
            s.put("writable", b.isWrite());
            s.put("executable", b.isExecute());
            s.put("initialized", b.isInitialized());
            s.put("overlay", b.isOverlay());
            Object fileOffset = null;
            long fileBytes = 0;
            List<MemoryBlockSourceInfo> src = b.getSourceInfos();
            if (b.isInitialized() && src.size() == 1 && src.get(0).getFileBytes().isPresent()) {
                fileOffset = src.get(0).getFileBytesOffset() + src.get(0).getFileBytes().get().getFileOffset();
                fileBytes = src.get(0).getLength();
            }
            s.put("file_offset", fileOffset);
            s.put("file_bytes", fileBytes);
            out.add(s);
        }
        return out;
    }

    private List<Map<String, Object>> procedures() throws ReaBridgeProtocol.BridgeException {
        if (procedures != null) return procedures;
        List<Map<String, Object>> out = new ArrayList<>();
        for (var it = currentProgram.getFunctionManager().getFunctions(true); it.hasNext();) {
            out.add(procedureItem(it.next()));
            if (out.size() > MAX_INVENTORY) throw new ReaBridgeProtocol.BridgeException("limit_exceeded", "over 1,000,000 procedures");
        }
        for (var it = currentProgram.getFunctionManager().getExternalFunctions(); it.hasNext();) {
            out.add(procedureItem(it.next()));
        }
        procedures = out;
        return out;
    }

    private Map<String, Object> procedureItem(Function f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("address", fmt(f.getEntryPoint()));
        m.put("value", f.getName(true));
        m.put("value_truncated", false);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("external", f.isExternal());
        c.put("thunk", f.isThunk());
        Function t = f.isThunk() ? f.getThunkedFunction(true) : null;
        c.put("thunk_target", t == null ? null : t.getName(true));
        m.put("procedure", c);
        m.put("body_size", f.isExternal() ? 0L : f.getBody().getNumAddresses());
        // rea extension: the exclusive end of the body (its highest address plus one).
        m.put("body_end", f.isExternal() || f.getBody().isEmpty() ? null : fmt(f.getBody().getMaxAddress().add(1)));
        return m;
    }

    private List<Map<String, Object>> names() throws ReaBridgeProtocol.BridgeException {
        if (names != null) return names;
        List<Map<String, Object>> out = new ArrayList<>();
        for (Symbol s : currentProgram.getSymbolTable().getAllSymbols(true)) {
            if (!s.getAddress().isMemoryAddress() && !s.isExternal()) continue;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("address", fmt(s.getAddress()));
            m.put("value", s.getName(true));
            m.put("value_truncated", false);
            Map<String, Object> sym = new LinkedHashMap<>();
            sym.put("primary", s.isPrimary());
            sym.put("dynamic", s.isDynamic());
            sym.put("external", s.isExternal());
            sym.put("type", s.getSymbolType().toString().toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "_"));
            sym.put("source", s.getSource().toString().toLowerCase(java.util.Locale.ROOT));
            m.put("symbol", sym);
            out.add(m);
            if (out.size() > MAX_INVENTORY) throw new ReaBridgeProtocol.BridgeException("limit_exceeded", "over 1,000,000 names");
        }
        names = out;
        return out;
    }

    private List<Map<String, Object>> strings() throws ReaBridgeProtocol.BridgeException {
        if (strings != null) return strings;
        List<Map<String, Object>> out = new ArrayList<>();
        for (Data data : DefinedStringIterator.forProgram(currentProgram)) {
            StringDataInstance s = StringDataInstance.getStringDataInstance(data);
            String v = s.getStringValue();
            if (v == null || v.isEmpty()) continue;
            String charset = s.getCharsetName();
            int len = data.getLength();
            boolean terminated = false;
            int unit = "UTF-16".equalsIgnoreCase(charset) || "UTF-16LE".equalsIgnoreCase(charset) ? 2 : 1;
            if (len >= unit && v.length() * unit < len) {
                terminated = true;
                len -= unit; // the terminator is not part of byte_length
            }
            boolean truncated = v.codePointCount(0, v.length()) > 1024;
            if (truncated) v = v.substring(0, v.offsetByCodePoints(0, 1024));
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("address", fmt(data.getAddress()));
            m.put("value", v);
            m.put("value_truncated", truncated);
            Map<String, Object> st = new LinkedHashMap<>();
            st.put("encoding", charset == null ? "unknown" : charset);
            st.put("termination", terminated ? "present_or_not_required" : "missing");
            st.put("byte_length", (long) len);
            m.put("string", st);
            out.add(m);
            if (out.size() > MAX_INVENTORY) throw new ReaBridgeProtocol.BridgeException("limit_exceeded", "over 1,000,000 strings");
        }
        strings = out;
        return out;
    }

    private Map<String, Object> info(Function f) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("name", f.getName(true));
        r.put("entrypoint", fmt(f.getEntryPoint()));
        long blocks = 0;
        try {
            var it = new ghidra.program.model.block.BasicBlockModel(currentProgram, false).getCodeBlocksContaining(f.getBody(), monitor);
            while (it.hasNext()) {
                it.next();
                blocks++;
            }
        } catch (ghidra.util.exception.CancelledException e) {
            blocks = -1;
        }
        r.put("basicblock_count", blocks);
        r.put("length", f.getBody().getNumAddresses());
        r.put("signature", f.getSignature() == null ? null : f.getSignature().getPrototypeString());
        List<Object> locals = new ArrayList<>();
        for (var v : f.getLocalVariables()) {
            locals.add(new LinkedHashMap<>(Map.of("description", v.getDataType().getDisplayName() + " " + v.getName() + " @ " + v.getVariableStorage(),
                    "provenance", "ghidra-function-database")));
        }
        r.put("locals", locals);
        Map<String, Object> cls = new LinkedHashMap<>();
        cls.put("external", f.isExternal());
        cls.put("thunk", f.isThunk());
        Function t = f.isThunk() ? f.getThunkedFunction(true) : null;
        cls.put("thunk_target", t == null ? null : t.getName(true));
        cls.put("provenance", "ghidra-function-manager");
        r.put("classification", cls);
        // rea extension: the prototype in parts, for ports.Signature.
        Map<String, Object> proto = new LinkedHashMap<>();
        proto.put("calling_convention", f.getCallingConventionName());
        proto.put("return_type", f.getReturnType().getDisplayName());
        List<Object> params = new ArrayList<>();
        for (var p : f.getParameters()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("name", p.getName());
            pm.put("type", p.getDataType().getDisplayName());
            pm.put("storage", p.getVariableStorage().toString());
            params.add(pm);
        }
        proto.put("parameters", params);
        proto.put("variadic", f.hasVarArgs());
        r.put("prototype", proto);
        return r;
    }

    // rea extension: a linear sweep with the PseudoDisassembler, which reads
    // the program without changing its listing; bytes that do not decode are
    // one "(bad)" step of the language's instruction alignment.
    private Map<String, Object> disassemble(Address start, Address end, int max) throws ReaBridgeProtocol.BridgeException {
        MemoryBlock b = currentProgram.getMemory().getBlock(start);
        if (b == null || !b.isInitialized() || !b.isExecute()) throw new ReaBridgeProtocol.BridgeException("not_found", "no code block at " + fmt(start));
        var pd = new ghidra.app.util.PseudoDisassembler(currentProgram);
        int align = Math.max(1, currentProgram.getLanguage().getInstructionAlignment());
        List<Object> out = new ArrayList<>();
        Address a = start;
        boolean truncated = false;
        while (a != null && a.compareTo(end) < 0 && b.contains(a)) {
            if (out.size() >= max) {
                truncated = true;
                break;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("address", fmt(a));
            ghidra.app.util.PseudoInstruction in = null;
            try {
                in = pd.disassemble(a);
            } catch (Exception e) {
                in = null;
            }
            StringBuilder hex = new StringBuilder();
            int len = in == null ? align : in.getLength();
            try {
                byte[] bytes = new byte[len];
                currentProgram.getMemory().getBytes(a, bytes);
                for (byte x : bytes) hex.append(String.format("%02x", x & 0xff));
            } catch (ghidra.program.model.mem.MemoryAccessException e) {
                break;
            }
            m.put("bytes", hex.toString());
            if (in == null) {
                m.put("mnemonic", "(bad)");
                m.put("operands", "");
                m.put("flow", "stop");
                m.put("target", null);
                m.put("invalid", true);
            } else {
                m.put("mnemonic", in.getMnemonicString().toLowerCase(java.util.Locale.ROOT));
                List<String> ops = new ArrayList<>();
                for (int i = 0; i < in.getNumOperands(); i++) ops.add(in.getDefaultOperandRepresentation(i));
                m.put("operands", String.join(", ", ops));
                var ft = in.getFlowType();
                m.put("flow", ft.isCall() ? "call" : ft.isJump() ? (ft.isConditional() ? "branch" : "jump") : ft.isTerminal() ? "return" : "next");
                Address[] flows = in.getFlows();
                m.put("target", flows != null && flows.length == 1 && !ft.isComputed() ? fmt(flows[0]) : null);
                m.put("invalid", false);
            }
            out.add(m);
            try {
                a = a.add(len);
            } catch (Exception e) {
                a = null;
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("instructions", out);
        r.put("truncated", truncated);
        return r;
    }

    // rea extension: every reference made from memory, plus the computed
    // calls and jumps Ghidra holds no reference for (unresolved), by source.
    private List<Map<String, Object>> references() throws ReaBridgeProtocol.BridgeException {
        if (references != null) return references;
        List<Map<String, Object>> out = new ArrayList<>();
        var rm = currentProgram.getReferenceManager();
        for (var in : currentProgram.getListing().getInstructions(true)) {
            boolean flowRef = false;
            for (var r : rm.getReferencesFrom(in.getAddress())) {
                var t = r.getReferenceType();
                if (r.isEntryPointReference() || t.isFallthrough()) continue;
                String kind = t.isCall() ? "call" : t.isJump() ? "jump" : t.isWrite() ? "write" : t.isRead() ? "read" : "address";
                flowRef |= t.isFlow();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("from", fmt(in.getAddress()));
                m.put("to", fmt(r.getToAddress()));
                m.put("kind", kind);
                m.put("unresolved", false);
                m.put("operand", "");
                m.put("slot", null);
                out.add(m);
            }
            var ft = in.getFlowType();
            if (!flowRef && ft.isComputed() && (ft.isCall() || ft.isJump())) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("from", fmt(in.getAddress()));
                m.put("to", null);
                m.put("kind", ft.isCall() ? "call" : "jump");
                m.put("unresolved", true);
                List<String> ops = new ArrayList<>();
                for (int i = 0; i < in.getNumOperands(); i++) ops.add(in.getDefaultOperandRepresentation(i));
                m.put("operand", String.join(", ", ops));
                Address slot = null;
                for (var r : rm.getReferencesFrom(in.getAddress())) {
                    if (r.getReferenceType().isRead() && r.getToAddress().isMemoryAddress()) slot = r.getToAddress();
                }
                m.put("slot", slot == null ? null : fmt(slot));
                out.add(m);
            }
            if (out.size() > MAX_INVENTORY) throw new ReaBridgeProtocol.BridgeException("limit_exceeded", "over 1,000,000 references");
        }
        references = out;
        return out;
    }

    // rea extension: the listing over a function body and its basic blocks.
    private Map<String, Object> body(Function f, int max) throws ReaBridgeProtocol.BridgeException {
        List<Object> ins = new ArrayList<>();
        long count = 0;
        for (var in : currentProgram.getListing().getInstructions(f.getBody(), true)) {
            count++;
            if (count > 100_000) throw new ReaBridgeProtocol.BridgeException("limit_exceeded", "over 100,000 instructions");
            if (ins.size() >= max) continue;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("address", fmt(in.getAddress()));
            StringBuilder hex = new StringBuilder();
            try {
                for (byte b : in.getBytes()) hex.append(String.format("%02x", b & 0xff));
            } catch (ghidra.program.model.mem.MemoryAccessException e) {
                throw new ReaBridgeProtocol.BridgeException("bridge_exception", "MemoryAccessException: " + e.getMessage());
            }
            m.put("bytes", hex.toString());
            m.put("mnemonic", in.getMnemonicString().toLowerCase(java.util.Locale.ROOT));
            List<String> ops = new ArrayList<>();
            for (int i = 0; i < in.getNumOperands(); i++) ops.add(in.getDefaultOperandRepresentation(i));
            m.put("operands", String.join(", ", ops));
            var ft = in.getFlowType();
            String flow = ft.isCall() ? "call" : ft.isJump() ? (ft.isConditional() ? "branch" : "jump") : ft.isTerminal() ? "return" : "next";
            m.put("flow", flow);
            Address[] flows = in.getFlows();
            m.put("target", flows != null && flows.length == 1 && !ft.isComputed() ? fmt(flows[0]) : null);
            ins.add(m);
        }
        List<Object> blocks = new ArrayList<>();
        try {
            var model = new ghidra.program.model.block.BasicBlockModel(currentProgram, false);
            var it = model.getCodeBlocksContaining(f.getBody(), monitor);
            while (it.hasNext()) {
                var b = it.next();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("start", fmt(b.getMinAddress()));
                m.put("end", fmt(b.getMaxAddress().add(1)));
                long n = 0;
                for (var in : currentProgram.getListing().getInstructions(b, true)) n++;
                m.put("instructions", n);
                List<Object> succ = new ArrayList<>();
                var dests = b.getDestinations(monitor);
                while (dests.hasNext()) {
                    var d = dests.next();
                    var ft = d.getFlowType();
                    if (ft.isCall()) continue;
                    Address to = d.getDestinationAddress();
                    Map<String, Object> e = new LinkedHashMap<>();
                    String kind;
                    // A computed jump whose destinations Ghidra recovered
                    // (a switch's jump table) names each case inside the
                    // body; one it could not resolve stays unresolved.
                    if (to == null || !to.isMemoryAddress()) kind = "unresolved";
                    else if (ft.isComputed()) kind = ft.isJump() && f.getBody().contains(to) ? "jump-table" : "unresolved";
                    else if (!f.getBody().contains(to)) kind = "tail-call";
                    else if (ft.isFallthrough()) kind = "fallthrough";
                    else if (ft.isConditional()) kind = "branch";
                    else kind = "jump";
                    e.put("kind", kind);
                    e.put("target", kind.equals("unresolved") ? null : fmt(to));
                    succ.add(e);
                }
                m.put("successors", succ);
                blocks.add(m);
            }
        } catch (ghidra.util.exception.CancelledException e) {
            throw new ReaBridgeProtocol.BridgeException("bridge_exception", "CancelledException: " + e.getMessage());
        }
        blocks.sort((x, y) -> Long.compareUnsigned(
                Long.parseUnsignedLong(((String) ((Map<?, ?>) x).get("start")).substring(2), 16),
                Long.parseUnsignedLong(((String) ((Map<?, ?>) y).get("start")).substring(2), 16)));
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("instructions", ins);
        r.put("instruction_count", count);
        r.put("blocks", blocks);
        r.put("truncated", false);
        return r;
    }

    private Object decompile(Function f) throws ReaBridgeProtocol.BridgeException {
        if (f.isExternal() || f.getBody().isEmpty()) return null;
        return decompiled(f).getDecompiledFunction().getC();
    }

    // decompiled runs the decompiler on f (C code and syntax tree on) and
    // maps its failures onto the bridge's codes.
    private DecompileResults decompiled(Function f) throws ReaBridgeProtocol.BridgeException {
        DecompileResults r = decompiler.decompileFunction(f, DECOMPILE_SECONDS, monitor);
        if (r.isTimedOut()) throw new ReaBridgeProtocol.BridgeException("decompile_timeout", "decompiling " + f.getName() + " took over 30 s");
        if (r.isCancelled()) throw new ReaBridgeProtocol.BridgeException("decompile_cancelled", "decompiling " + f.getName() + " was cancelled");
        if (!r.decompileCompleted() || r.getDecompiledFunction() == null) {
            String msg = r.getErrorMessage() == null ? "no detail" : r.getErrorMessage();
            if (msg.codePointCount(0, msg.length()) > 512) msg = msg.substring(0, msg.offsetByCodePoints(0, 512));
            throw new ReaBridgeProtocol.BridgeException("decompile_failed", msg);
        }
        return r;
    }

    // native_api: the prototype and jump tables of the decompiler's
    // HighFunction, capped by ReaBridgeProtocol.nativeApi. A procedure with
    // nothing to decompile, or no HighFunction, is unavailable.
    private Map<String, Object> nativeApi(Function f) throws ReaBridgeProtocol.BridgeException {
        if (f.isExternal() || f.getBody().isEmpty()) {
            return ReaBridgeProtocol.nativeApiUnavailable("Ghidra has no body to decompile for this procedure (external or empty).");
        }
        HighFunction h = decompiled(f).getHighFunction();
        FunctionPrototype proto = h == null ? null : h.getFunctionPrototype();
        if (proto == null) {
            return ReaBridgeProtocol.nativeApiUnavailable("Ghidra's decompiler gave no HighFunction prototype for this procedure.");
        }
        List<Map<String, Object>> params = new ArrayList<>();
        for (int i = 0; i < proto.getNumParams(); i++) {
            HighSymbol s = proto.getParam(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", s == null ? null : ReaBridgeProtocol.clip(s.getName()));
            m.put("type", s == null || s.getDataType() == null ? null : ReaBridgeProtocol.clip(s.getDataType().getDisplayName()));
            m.put("storage", s == null || s.getStorage() == null ? null : ReaBridgeProtocol.clip(s.getStorage().toString()));
            params.add(m);
        }
        List<ReaBridgeProtocol.JumpTableData> tables = new ArrayList<>();
        JumpTable[] jts = h.getJumpTables();
        for (JumpTable t : jts == null ? new JumpTable[0] : jts) {
            List<Map<String, Object>> sources = new ArrayList<>();
            // A JumpTable built outside a decode holds null arrays, which
            // its getters clone; such a table contributes what it has.
            JumpTable.LoadTable[] loads = null;
            try {
                loads = t.getLoadTables();
            } catch (NullPointerException e) {
                loads = null;
            }
            for (JumpTable.LoadTable lt : loads == null ? new JumpTable.LoadTable[0] : loads) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("address", fmt(lt.getAddress()));
                m.put("entry_size", (long) lt.getSize());
                m.put("entries", (long) lt.getNum());
                sources.add(m);
            }
            List<Map<String, Object>> mappings = new ArrayList<>();
            Address[] cases = null;
            Integer[] labels = null;
            try {
                cases = t.getCases();
                labels = t.getLabelValues();
            } catch (NullPointerException e) {
                // cases as far as they were read, without labels
            }
            for (int i = 0; cases != null && i < cases.length; i++) {
                Map<String, Object> m = new LinkedHashMap<>();
                Integer label = labels != null && i < labels.length ? labels[i] : null;
                m.put("value", label == null ? null : (Object) (long) label);
                m.put("target", fmt(cases[i]));
                mappings.add(m);
            }
            tables.add(new ReaBridgeProtocol.JumpTableData(fmt(t.getSwitchAddress()), sources, mappings));
        }
        String ret = proto.getReturnType() == null ? null : proto.getReturnType().getDisplayName();
        return ReaBridgeProtocol.nativeApi(proto.getModelName(), ret, proto.isVarArg(), params, tables);
    }

    private Map<String, Object> readBytes(Address a, int length) throws ReaBridgeProtocol.BridgeException {
        MemoryBlock b = currentProgram.getMemory().getBlock(a);
        if (b == null || !b.isInitialized()) throw new ReaBridgeProtocol.BridgeException("not_found", "no initialized block at " + fmt(a));
        long avail = b.getEnd().subtract(a) + 1;
        byte[] buf = new byte[(int) Math.min(length, avail)];
        try {
            int n = b.getBytes(a, buf);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("address", fmt(a));
            r.put("base64", Base64.getEncoder().encodeToString(n == buf.length ? buf : java.util.Arrays.copyOf(buf, n)));
            return r;
        } catch (Exception e) {
            throw new ReaBridgeProtocol.BridgeException("not_found", "bytes at " + fmt(a) + " cannot be read");
        }
    }
}
