// The real-EMF consumer of what cfmodel writes (test harness, not shipped).
//
// Usage: java EmfChecker [--ecore F]... [--xmi F]... [--resave-dir DIR] [--no-dump] [--structure]
//        [--extended-metadata]
//        java EmfChecker --ecore bench.ecore --bench N [--rounds R]
//
// Loads the .ecore files (registering every package by nsURI in one ResourceSet), then
// the XMI instance files; resolves all proxies and reports the unresolved ones; runs
// Diagnostician.INSTANCE.validate on every root (EcoreValidator for EPackages); prints a
// canonical dump that matches cfmodel.serializers.canonical byte for byte; optionally
// re-saves every resource with EMF's own XMI serializer. --structure: instead of the
// canonical dump, a "structure" record per resource: every object of the metamodel with
// every persistent feature EMF's reflection gives (generic types written out in full,
// references as <nsURI of the target's root package>#<fragment>), so two .ecore files of
// one metamodel compare equal line for line exactly when EMF sees the same metamodel. Output: JSON lines on stdout,
// one object per line, "kind" first; the last line is a "summary".
//
// --bench N: inside the JVM, after warm-up, builds N instances of class Node of the given
// metamodel (attributes name/size/weight/enabled, reference next), saves them to XMI and
// loads them back, R rounds; prints the best times and heap per instance as one JSON line.
//
// --extended-metadata: the XMI files are loaded and re-saved with
// XMLResource.OPTION_EXTENDED_META_DATA (what reads and writes attribute wildcards, as
// XML attributes of demand-created features); the .ecore files as always.

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.emf.common.util.Diagnostic;
import org.eclipse.emf.common.util.Enumerator;
import org.eclipse.emf.common.util.TreeIterator;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.EAnnotation;
import org.eclipse.emf.ecore.EAttribute;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EClassifier;
import org.eclipse.emf.ecore.EDataType;
import org.eclipse.emf.ecore.EEnum;
import org.eclipse.emf.ecore.EEnumLiteral;
import org.eclipse.emf.ecore.EModelElement;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EPackage;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.emf.ecore.EValidator;
import org.eclipse.emf.ecore.EcorePackage;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.emf.ecore.resource.ResourceSet;
import org.eclipse.emf.ecore.resource.impl.ResourceSetImpl;
import org.eclipse.emf.ecore.util.Diagnostician;
import org.eclipse.emf.ecore.util.EcoreUtil;
import org.eclipse.emf.ecore.util.EcoreValidator;
import org.eclipse.emf.ecore.util.FeatureMap;
import org.eclipse.emf.ecore.xmi.XMLResource;
import org.eclipse.emf.ecore.xmi.impl.EcoreResourceFactoryImpl;
import org.eclipse.emf.ecore.xmi.impl.XMIResourceFactoryImpl;
import org.eclipse.emf.ecore.xmi.impl.XMIResourceImpl;

public final class EmfChecker {
    private int errors;
    private int unresolved;
    private int diagnostics;
    private final ResourceSet rs = newResourceSet();
    private boolean structure;
    private boolean extendedMetaData;

    public static void main(String[] args) throws Exception {
        List<String> ecores = new ArrayList<>();
        List<String> xmis = new ArrayList<>();
        String resaveDir = null;
        boolean dump = true;
        boolean structure = false;
        boolean extendedMetaData = false;
        int bench = 0;
        int rounds = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ecore": ecores.add(args[++i]); break;
                case "--xmi": xmis.add(args[++i]); break;
                case "--resave-dir": resaveDir = args[++i]; break;
                case "--no-dump": dump = false; break;
                case "--structure": structure = true; break;
                case "--extended-metadata": extendedMetaData = true; break;
                case "--bench": bench = Integer.parseInt(args[++i]); break;
                case "--rounds": rounds = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        EmfChecker checker = new EmfChecker();
        if (bench > 0) {
            checker.bench(ecores.get(0), bench, rounds);
            return;
        }
        checker.structure = structure;
        checker.extendedMetaData = extendedMetaData;
        checker.run(ecores, xmis, resaveDir, dump);
    }

    static ResourceSet newResourceSet() {
        EValidator.Registry.INSTANCE.put(EcorePackage.eINSTANCE, EcoreValidator.INSTANCE);
        ResourceSet rs = new ResourceSetImpl();
        Map<String, Object> factories = rs.getResourceFactoryRegistry().getExtensionToFactoryMap();
        factories.put("ecore", new EcoreResourceFactoryImpl());
        factories.put("*", new XMIResourceFactoryImpl());
        rs.getPackageRegistry().put(EcorePackage.eNS_URI, EcorePackage.eINSTANCE);
        return rs;
    }

    void run(List<String> ecores, List<String> xmis, String resaveDir, boolean dump) {
        List<Resource> loaded = new ArrayList<>();
        for (String f : ecores) {
            Resource r = load(f, false);
            if (r != null) {
                loaded.add(r);
                for (EObject root : r.getContents()) {
                    // a copy of Ecore itself must not replace the Ecore that reads .ecore files
                    if (root instanceof EPackage && !EcorePackage.eNS_URI.equals(((EPackage) root).getNsURI())) {
                        register((EPackage) root);
                    }
                }
            }
        }
        for (String f : xmis) {
            Resource r = load(f, extendedMetaData);
            if (r != null) loaded.add(r);
        }
        EcoreUtil.resolveAll(rs);
        reportUnresolved();
        for (Resource r : loaded) {
            validate(r);
            if (structure) emit("structure", r, "lines", jsonList(Structure.of(r)));
            else if (dump) emit("dump", r, "lines", jsonList(Dump.of(r)));
        }
        if (resaveDir != null) {
            // every resource moves first, so references between them are written relative
            // to the new locations (b.xmi#x, not ../old/b.xmi#x)
            for (Resource r : loaded) {
                r.setURI(URI.createFileURI(new File(resaveDir, r.getURI().lastSegment()).getAbsolutePath()));
            }
            for (Resource r : loaded) resave(r);
        }
        System.out.println("{\"kind\":\"summary\",\"errors\":" + errors + ",\"unresolved\":" + unresolved
            + ",\"diagnostics\":" + diagnostics + "}");
    }

    void register(EPackage p) {
        rs.getPackageRegistry().put(p.getNsURI(), p);
        for (EPackage sub : p.getESubpackages()) register(sub);
    }

    Resource load(String file, boolean withExtendedMetaData) {
        URI uri = URI.createFileURI(new File(file).getAbsolutePath());
        Resource r = rs.createResource(uri);
        try {
            Map<Object, Object> options = loadOptions();
            if (withExtendedMetaData) options.put(XMLResource.OPTION_EXTENDED_META_DATA, Boolean.TRUE);
            r.load(options);
        } catch (Exception e) {
            if (r.getErrors().isEmpty()) {
                errors++;
                emit("error", r, "message", quote(String.valueOf(e)));
            }
        }
        for (Resource.Diagnostic d : r.getErrors()) {
            errors++;
            emit("error", r, "message", quote(d.getMessage() + " at " + d.getLine() + ":" + d.getColumn()));
        }
        for (Resource.Diagnostic d : r.getWarnings()) {
            diagnostics++;
            emit("warning", r, "message", quote(d.getMessage()));
        }
        return r.isLoaded() ? r : null;
    }

    static Map<Object, Object> loadOptions() {
        Map<Object, Object> o = new HashMap<>();
        o.put(XMLResource.OPTION_DEFER_IDREF_RESOLUTION, Boolean.TRUE);
        return o;
    }

    void reportUnresolved() {
        Map<EObject, Collection<EStructuralFeature.Setting>> found =
            EcoreUtil.UnresolvedProxyCrossReferencer.find(rs);
        for (Map.Entry<EObject, Collection<EStructuralFeature.Setting>> e : found.entrySet()) {
            for (EStructuralFeature.Setting s : e.getValue()) {
                unresolved++;
                Resource r = s.getEObject().eResource();
                emit("unresolved", r, "proxy", quote(EcoreUtil.getURI(e.getKey()).toString()
                    + " from " + s.getEStructuralFeature().getName()));
            }
        }
    }

    void validate(Resource r) {
        for (EObject root : r.getContents()) {
            Diagnostic d = Diagnostician.INSTANCE.validate(root);
            report(r, d);
        }
    }

    void report(Resource r, Diagnostic d) {
        if (d.getSeverity() == Diagnostic.OK) return;
        if (d.getChildren().isEmpty()) {
            diagnostics++;
            String sev = d.getSeverity() == Diagnostic.ERROR ? "error" : d.getSeverity() == Diagnostic.WARNING
                ? "warning" : "info";
            emit("diagnostic", r, "message", quote(sev + ": " + d.getMessage()));
            return;
        }
        for (Diagnostic c : d.getChildren()) report(r, c);
    }

    void resave(Resource r) {
        URI target = r.getURI();
        try {
            Map<Object, Object> o = new HashMap<>();
            o.put(XMLResource.OPTION_ENCODING, "UTF-8");
            if (extendedMetaData && !r.getURI().lastSegment().endsWith(".ecore")) {
                o.put(XMLResource.OPTION_EXTENDED_META_DATA, Boolean.TRUE);
            }
            r.save(o);
            emit("resaved", r, "path", quote(target.toFileString()));
        } catch (Exception e) {
            errors++;
            emit("error", r, "message", quote("resave failed: " + e));
        }
    }

    // ---- benchmark -------------------------------------------------------------------

    void bench(String ecore, int n, int rounds) throws Exception {
        Resource mm = load(ecore, false);
        EPackage pkg = (EPackage) mm.getContents().get(0);
        register(pkg);
        EClass node = (EClass) pkg.getEClassifier("Node");
        for (int i = 0; i < 3; i++) saveLoad(node, Math.min(n, 20000));  // warm-up (JIT)
        long bestSave = Long.MAX_VALUE;
        long bestLoad = Long.MAX_VALUE;
        long bytes = 0;
        for (int i = 0; i < rounds; i++) {
            long[] t = saveLoad(node, n);
            bestSave = Math.min(bestSave, t[0]);
            bestLoad = Math.min(bestLoad, t[1]);
            bytes = t[2];
        }
        long heap = heapPerInstance(node, n);
        System.out.println("{\"kind\":\"bench\",\"n\":" + n + ",\"save_s\":" + bestSave / 1e9 + ",\"load_s\":"
            + bestLoad / 1e9 + ",\"bytes\":" + bytes + ",\"heap_bytes_per_instance\":" + heap + "}");
    }

    static XMIResourceImpl generate(EClass node, int n) {
        XMIResourceImpl r = new XMIResourceImpl(URI.createURI("bench.xmi"));
        EStructuralFeature name = node.getEStructuralFeature("name");
        EStructuralFeature size = node.getEStructuralFeature("size");
        EStructuralFeature weight = node.getEStructuralFeature("weight");
        EStructuralFeature enabled = node.getEStructuralFeature("enabled");
        EStructuralFeature next = node.getEStructuralFeature("next");
        EObject previous = null;
        for (int i = 0; i < n; i++) {
            EObject o = EcoreUtil.create(node);
            o.eSet(name, "node" + i);
            o.eSet(size, i);
            o.eSet(weight, i * 0.5);
            o.eSet(enabled, i % 2 == 0);
            if (previous != null) o.eSet(next, previous);
            r.getContents().add(o);
            r.setID(o, "n" + i);
            previous = o;
        }
        return r;
    }

    long[] saveLoad(EClass node, int n) throws Exception {
        XMIResourceImpl r = generate(node, n);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        r.save(out, null);
        long t1 = System.nanoTime();
        byte[] data = out.toByteArray();
        Resource back = rs.createResource(URI.createURI("bench-" + System.nanoTime() + ".xmi"));
        long t2 = System.nanoTime();
        back.load(new ByteArrayInputStream(data), loadOptions());
        long t3 = System.nanoTime();
        if (back.getContents().size() != n) throw new IllegalStateException("bench: lost objects");
        rs.getResources().remove(back);
        return new long[] {t1 - t0, t3 - t2, data.length};
    }

    static long heapPerInstance(EClass node, int n) {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long before = rt.totalMemory() - rt.freeMemory();
        XMIResourceImpl r = generate(node, n);
        System.gc();
        long after = rt.totalMemory() - rt.freeMemory();
        if (r.getContents().size() != n) throw new IllegalStateException();
        return (after - before) / n;
    }

    // ---- JSON output -----------------------------------------------------------------

    void emit(String kind, Resource r, String key, String jsonValue) {
        String file = r == null ? "" : r.getURI().lastSegment();
        System.out.println("{\"kind\":" + quote(kind) + ",\"file\":" + quote(file) + ",\"" + key + "\":"
            + jsonValue + "}");
    }

    static String jsonList(List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) b.append(',');
            b.append(quote(items.get(i)));
        }
        return b.append(']').toString();
    }

    /** Same escaping as Python's json.dumps(ensure_ascii=True). */
    static String quote(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                case '\b': b.append("\\b"); break;
                case '\f': b.append("\\f"); break;
                default:
                    if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** The canonical dump; the format is defined in cfmodel/serializers/canonical.py. */
    /** Every object of a metamodel resource with every persistent feature, canonically. */
    static final class Structure {
        // the raw forms of what the generic forms below say in full
        private static final java.util.Set<String> RAW = new java.util.HashSet<>(java.util.Arrays.asList(
            "eType", "eGenericType", "eSuperTypes", "eGenericSuperTypes", "eExceptions", "eGenericExceptions",
            "eBounds"));

        static List<String> of(Resource r) {
            List<String> out = new ArrayList<>();
            for (EObject root : r.getContents()) walk(root, out);
            return out;
        }

        static void walk(EObject o, List<String> out) {
            if (o instanceof org.eclipse.emf.ecore.EGenericType) return;
            out.add(uri(o) + " " + o.eClass().getName());
            for (EStructuralFeature f : o.eClass().getEAllStructuralFeatures()) {
                if (f.isDerived() || f.isTransient() || RAW.contains(f.getName())) continue;
                if (f instanceof EReference && ((EReference) f).isContainer()) continue;
                out.add("  " + f.getName() + " = " + value(o, f));
            }
            if (o instanceof org.eclipse.emf.ecore.ETypedElement) {
                out.add("  type = " + generic(((org.eclipse.emf.ecore.ETypedElement) o).getEGenericType()));
            }
            if (o instanceof EClass) out.add("  supertypes = " + generics(((EClass) o).getEGenericSuperTypes()));
            if (o instanceof org.eclipse.emf.ecore.EOperation) {
                out.add("  exceptions = " + generics(((org.eclipse.emf.ecore.EOperation) o).getEGenericExceptions()));
            }
            if (o instanceof org.eclipse.emf.ecore.ETypeParameter) {
                out.add("  bounds = " + generics(((org.eclipse.emf.ecore.ETypeParameter) o).getEBounds()));
            }
            for (EObject c : o.eContents()) walk(c, out);
        }

        static String value(EObject o, EStructuralFeature f) {
            Object v = o.eGet(f, true);
            if (f.isMany()) {
                List<String> items = new ArrayList<>();
                for (Object item : (List<?>) v) items.add(single(f, item));
                return items.toString();
            }
            return single(f, v);
        }

        static String single(EStructuralFeature f, Object v) {
            if (v == null) return "null";
            if (v instanceof EObject) return uri((EObject) v);
            if (f instanceof EAttribute) {
                EDataType t = ((EAttribute) f).getEAttributeType();
                return quote(t.isSerializable() ? EcoreUtil.convertToString(t, v) : String.valueOf(v));
            }
            return quote(String.valueOf(v));
        }

        static String uri(EObject o) {
            if (o.eIsProxy()) return "PROXY " + EcoreUtil.getURI(o);
            EObject root = EcoreUtil.getRootContainer(o);
            String ns = root instanceof EPackage ? ((EPackage) root).getNsURI() : "?";
            Resource r = o.eResource();
            String fragment = r != null ? r.getURIFragment(o) : EcoreUtil.getURI(o).fragment();
            return ns + "#" + fragment;
        }

        static String generics(List<org.eclipse.emf.ecore.EGenericType> gs) {
            List<String> items = new ArrayList<>();
            for (org.eclipse.emf.ecore.EGenericType g : gs) items.add(generic(g));
            return items.toString();
        }

        static String generic(org.eclipse.emf.ecore.EGenericType g) {
            if (g == null) return "-";
            StringBuilder b = new StringBuilder("<");
            if (g.getEClassifier() != null) b.append(uri(g.getEClassifier()));
            if (g.getETypeParameter() != null) b.append("param ").append(uri(g.getETypeParameter()));
            if (!g.getETypeArguments().isEmpty()) b.append(" args ").append(generics(g.getETypeArguments()));
            if (g.getEUpperBound() != null) b.append(" extends ").append(generic(g.getEUpperBound()));
            if (g.getELowerBound() != null) b.append(" super ").append(generic(g.getELowerBound()));
            return b.append(">").toString();
        }
    }

    static final class Dump {
        private final List<String> out = new ArrayList<>();
        private final Resource resource;

        private Dump(Resource r) {
            this.resource = r;
        }

        static List<String> of(Resource r) {
            Dump d = new Dump(r);
            for (EObject root : r.getContents()) {
                if (root instanceof EPackage) d.pkg((EPackage) root);
                else d.objects();
            }
            return d.out;
        }

        void pkg(EPackage p) {
            out.add("package " + p.getName() + " nsURI=" + p.getNsURI() + " nsPrefix=" + p.getNsPrefix());
            annotations(p, "  ");
            for (EClassifier c : p.getEClassifiers()) classifier(c);
            for (EPackage sub : p.getESubpackages()) pkg(sub);
        }

        void classifier(EClassifier c) {
            if (c instanceof EClass) {
                EClass k = (EClass) c;
                List<String> sup = new ArrayList<>();
                for (EClass s : k.getESuperTypes()) sup.add(typeRef(s));
                out.add("  class " + k.getName() + " abstract=" + k.isAbstract() + " interface=" + k.isInterface()
                    + " super=" + sup);
                annotations(k, "    ");
                for (EStructuralFeature f : k.getEStructuralFeatures()) feature(f);
            } else if (c instanceof EEnum) {
                out.add("  enum " + c.getName());
                annotations(c, "    ");
                for (EEnumLiteral l : ((EEnum) c).getELiterals()) {
                    out.add("    literal " + l.getName() + " = " + l.getValue() + " " + quote(l.getLiteral()));
                }
            } else {
                EDataType d = (EDataType) c;
                out.add("  datatype " + d.getName() + " instanceClassName=" + d.getInstanceClassName()
                    + " serializable=" + d.isSerializable());
                annotations(d, "    ");
            }
        }

        void feature(EStructuralFeature f) {
            String common = " : " + typeRef(f.getEType()) + " [" + f.getLowerBound() + ".." + f.getUpperBound()
                + "] ordered=" + f.isOrdered() + " unique=" + f.isUnique() + " changeable=" + f.isChangeable()
                + " volatile=" + f.isVolatile() + " transient=" + f.isTransient() + " derived=" + f.isDerived()
                + " unsettable=" + f.isUnsettable() + " default=" + quote(f.getDefaultValueLiteral());
            if (f instanceof EAttribute) {
                out.add("    attr " + f.getName() + common + " iD=" + ((EAttribute) f).isID());
            } else {
                EReference r = (EReference) f;
                String opp = r.getEOpposite() == null ? "null" : r.getEOpposite().getName();
                out.add("    ref " + f.getName() + common + " containment=" + r.isContainment() + " opposite=" + opp);
            }
            annotations(f, "      ");
        }

        void annotations(EModelElement e, String indent) {
            for (EAnnotation a : e.getEAnnotations()) {
                List<String> kv = new ArrayList<>();
                for (Map.Entry<String, String> d : a.getDetails()) kv.add(quote(d.getKey()) + ": " + quote(d.getValue()));
                out.add(indent + "annotation " + quote(a.getSource()) + " {" + String.join(", ", kv) + "}");
            }
        }

        static String typeRef(EClassifier c) {
            if (c == null) return "null";
            if (c.eIsProxy()) return "proxy:" + EcoreUtil.getURI(c);
            return c.getEPackage().getNsURI() + "#//" + c.getName();
        }

        void objects() {
            if (!out.isEmpty()) return;  // all roots are dumped at once
            TreeIterator<EObject> it = resource.getAllContents();
            while (it.hasNext()) object(it.next());
        }

        void object(EObject o) {
            out.add(path(o) + " : " + typeRef(o.eClass()));
            for (EStructuralFeature f : o.eClass().getEAllStructuralFeatures()) {
                if (f.isTransient() || f.isDerived()) continue;
                Object v = o.eGet(f, false);
                String text;
                if (f.isMany()) {
                    List<String> items = new ArrayList<>();
                    for (Object x : (List<?>) v) items.add(value(x));
                    text = "[" + String.join(", ", items) + "]";
                } else {
                    text = value(v);
                }
                out.add("  " + f.getName() + " = " + text);
            }
        }

        String path(EObject o) {
            String id = resource instanceof XMLResource ? ((XMLResource) resource).getID(o) : null;
            if (id != null) return id;
            EObject container = o.eContainer();
            if (container == null) return "/" + resource.getContents().indexOf(o);
            EReference f = o.eContainmentFeature();
            String step = f.getName();
            if (f.isMany()) step += "." + ((List<?>) container.eGet(f)).indexOf(o);
            return path(container) + "/" + step;
        }

        String value(Object v) {
            if (v == null) return "null";
            if (v instanceof Enumerator) return ((Enumerator) v).getName();
            if (v instanceof FeatureMap.Entry) {  // an entry of a feature map: its feature and value
                FeatureMap.Entry e = (FeatureMap.Entry) v;
                return e.getEStructuralFeature().getName() + "=" + value(e.getValue());
            }
            if (v instanceof EObject) {
                EObject o = (EObject) v;
                if (o.eIsProxy()) return "proxy:" + EcoreUtil.getURI(o);
                if (o.eResource() != resource) return "extern:" + EcoreUtil.getURI(o);
                return "@" + path(o);
            }
            if (v instanceof String || v instanceof Character) return quote(v.toString());
            if (v instanceof Double) return decimal((Double) v, Double.toString((Double) v));
            if (v instanceof Float) return decimal((Float) v, Float.toString((Float) v));
            if (v instanceof BigDecimal) return plain((BigDecimal) v);
            if (v instanceof Date) return Instant.ofEpochMilli(((Date) v).getTime()).toString().replaceFirst(
                "(:\\d\\d)Z$", "$1.000Z");
            return v.toString();
        }

        static String decimal(double d, String repr) {
            if (Double.isNaN(d)) return "NaN";
            if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
            if (d == 0) return "0";
            return plain(new BigDecimal(repr));
        }

        static String plain(BigDecimal b) {
            if (b.signum() == 0) return "0";
            return b.stripTrailingZeros().toPlainString();
        }
    }
}
