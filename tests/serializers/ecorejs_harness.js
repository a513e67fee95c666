// Runs ecore.js (npm's `ecore`, the JavaScript EMF by the author of emfjson), for
// tests/serializers/test_ecorejs.py:
//
//   node ecorejs_harness.js MODEL.json OUT.json METAMODEL.ecore...
//
// reads the metamodels with ecore.js's XMI reader (each package's resource named by its
// nsURI, as EMF's package registry names it; iD flags made booleans, see below), then the JSON model with its JSON reader
// (Ecore.JSON: emfjson's format), and writes OUT.json: {"dump": what ecore.js holds,
// "written": what ecore.js's JSON writer writes of it}. The dump is one entry per root:
// {"eClass": "nsURI#//Class", "id": the _id or null, "attributes": {name: value},
// "references": {name: [path of each target]}, "contents": {name: [entries]}}, for every
// set feature that is not derived and not a container reference; a path is "r<root>"
// followed by "/<feature>.<index>" per containment step. Anything ecore.js throws is
// printed and the exit status is 1.
"use strict";
const fs = require("fs");
const Ecore = require("ecore/dist/ecore.xmi");

// ecore.js's Ecore package lacks some of EMF's data types; metamodels name them by URI
const known = new Set(Ecore.EcorePackage.get("eClassifiers").map((c) => c.get("name")));
for (const name of ["EBooleanObject", "EBigDecimal", "EBigInteger", "EByte", "EByteObject", "EChar",
                    "ECharacterObject", "EShortObject", "EJavaObject", "EByteArray"]) {
  if (!known.has(name)) Ecore.EcorePackage.get("eClassifiers").add(Ecore.EDataType.create({ name: name }));
}

const [modelFile, outFile, ...ecores] = process.argv.slice(2);
const rset = Ecore.ResourceSet.create();
for (const file of ecores) {
  const loading = rset.create({ uri: file });
  loading.parse(fs.readFileSync(file, "utf8"), Ecore.XMI);
  const pkg = loading.get("contents").first();
  loading.set("uri", pkg.get("nsURI"));
  // ecore.js's XMI reader keeps iD="true" as the string, and its eIDAttribute wants true:
  // made a boolean, as its own JSON metamodels have it (nothing else of the file is changed)
  for (const attribute of rset.elements("EAttribute")) {
    if (attribute.get("iD") === "true") attribute.set("iD", true);
  }
  Ecore.EPackage.Registry.register(pkg);
}
const resource = rset.create({ uri: modelFile });
resource.parse(fs.readFileSync(modelFile, "utf8"), Ecore.JSON);

const roots = resource.get("contents").array();
const paths = new Map();
function place(obj, path) {
  paths.set(obj, path);
  for (const f of features(obj)) {
    if (f.isTypeOf("EReference") && f.get("containment")) {
      items(obj, f).forEach((child, k) => place(child, `${path}/${f.get("name")}.${k}`));
    }
  }
}
function features(obj) {
  return obj.eClass.get("eAllStructuralFeatures").filter((f) => {
    if (f.get("derived") || !obj.isSet(f.get("name"))) return false;
    const opposite = f.isTypeOf("EReference") ? f.get("eOpposite") : null;
    return !(opposite && opposite.get("containment"));
  });
}
function items(obj, f) {
  const value = obj.get(f.get("name"));
  if (f.get("upperBound") === 1) return value === null || value === undefined ? [] : [value];
  return value.array ? value.array() : value;
}
function dump(obj) {
  const pkg = obj.eClass.eContainer;
  const entry = { eClass: `${pkg.get("nsURI")}#//${obj.eClass.get("name")}`, id: obj._id || null,
                  attributes: {}, references: {}, contents: {} };
  for (const f of features(obj)) {
    const name = f.get("name");
    if (f.isTypeOf("EAttribute")) entry.attributes[name] = obj.get(name);
    else if (f.get("containment")) entry.contents[name] = items(obj, f).map(dump);
    else entry.references[name] = items(obj, f).map((t) => (paths.has(t) ? paths.get(t) : "outside"));
  }
  return entry;
}
roots.forEach((root, k) => place(root, `r${k}`));
const out = { dump: roots.map(dump), written: resource.to(Ecore.JSON) };
fs.writeFileSync(outFile, JSON.stringify(out, null, 1));
