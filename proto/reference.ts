import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * Writes proto/reference/<service>.md, the reference of each contract, from
 * buf's image of the module (`buf build -o -#format=json`): every service,
 * method, message, field and enum with the comments of its .proto. Run by
 * generate.sh beside the stubs, so proto/check.sh finds a stale reference the
 * way it finds stale stubs.
 */
const PROTO_DIR = __dirname;
const OUT_DIR = join(PROTO_DIR, 'reference');

// The parts of buf's JSON image (FileDescriptorSet) this reads.
const field = z.object({ name: z.string(), number: z.number(), label: z.string().optional(), type: z.string(), typeName: z.string().optional() });
const enumType = z.object({ name: z.string(), value: z.array(z.object({ name: z.string(), number: z.number().optional() })) });
type MessageType = { name: string; field?: z.infer<typeof field>[]; nestedType?: MessageType[]; enumType?: z.infer<typeof enumType>[] };
const messageType: z.ZodType<MessageType> = z.lazy(() =>
  z.object({ name: z.string(), field: z.array(field).optional(), nestedType: z.array(messageType).optional(), enumType: z.array(enumType).optional() }),
);
const image = z.object({
  file: z.array(
    z.object({
      name: z.string(),
      package: z.string(),
      messageType: z.array(messageType).default([]),
      enumType: z.array(enumType).default([]),
      service: z
        .array(z.object({ name: z.string(), method: z.array(z.object({ name: z.string(), inputType: z.string(), outputType: z.string() })) }))
        .default([]),
      sourceCodeInfo: z.object({ location: z.array(z.object({ path: z.array(z.number()).optional(), leadingComments: z.string().optional() })) }).optional(),
    }),
  ),
});
type ProtoFile = z.infer<typeof image>['file'][number];

// Descriptor field numbers, for source paths: FileDescriptorProto.message_type = 4, enum_type = 5, service = 6;
// DescriptorProto.field = 2, nested_type = 3, enum_type = 4; ServiceDescriptorProto.method = 2; EnumDescriptorProto.value = 2.
const PATH = { message: 4, enum: 5, service: 6, field: 2, nested: 3, nestedEnum: 4, method: 2, value: 2 } as const;

function commentsOf(file: ProtoFile): (path: number[]) => string {
  const comments = new Map<string, string>();
  for (const location of file.sourceCodeInfo?.location ?? []) {
    if (location.path && location.leadingComments) comments.set(location.path.join('.'), location.leadingComments);
  }
  return (path) =>
    (comments.get(path.join('.')) ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .join(' ');
}

const cell = (text: string) => text.replaceAll('|', '\\|');
const TYPE_NAMES: Record<string, string> = { TYPE_STRING: 'string', TYPE_BOOL: 'bool', TYPE_INT32: 'int32', TYPE_INT64: 'int64', TYPE_UINT32: 'uint32', TYPE_UINT64: 'uint64', TYPE_DOUBLE: 'double', TYPE_FLOAT: 'float', TYPE_BYTES: 'bytes' };

function typeOf(entry: z.infer<typeof field>, pkg: string): string {
  const base = entry.typeName ? entry.typeName.replace(/^\./, '').replace(`${pkg}.`, '') : (TYPE_NAMES[entry.type] ?? entry.type);
  return entry.label === 'LABEL_REPEATED' ? `repeated ${base}` : base;
}

function enumSection(entry: z.infer<typeof enumType>, name: string, path: number[], comment: (path: number[]) => string): string[] {
  const lines = [`### enum ${name}`, '', comment(path), '', '| Value | Number | Description |', '|---|---|---|'];
  entry.value.forEach((value, index) => lines.push(`| \`${value.name}\` | ${value.number ?? 0} | ${cell(comment([...path, PATH.value, index]))} |`));
  return [...lines, ''];
}

function messageSection(message: MessageType, name: string, path: number[], pkg: string, comment: (path: number[]) => string): string[] {
  const lines = [`### ${name}`, '', comment(path), ''];
  if ((message.field ?? []).length > 0) {
    lines.push('| Field | Number | Type | Description |', '|---|---|---|---|');
    (message.field ?? []).forEach((entry, index) =>
      lines.push(`| \`${entry.name}\` | ${entry.number} | \`${typeOf(entry, pkg)}\` | ${cell(comment([...path, PATH.field, index]))} |`),
    );
  } else {
    lines.push('No fields.');
  }
  lines.push('');
  (message.nestedType ?? []).forEach((nested, index) => lines.push(...messageSection(nested, `${name}.${nested.name}`, [...path, PATH.nested, index], pkg, comment)));
  (message.enumType ?? []).forEach((nested, index) => lines.push(...enumSection(nested, `${name}.${nested.name}`, [...path, PATH.nestedEnum, index], comment)));
  return lines;
}

function reference(file: ProtoFile): string {
  const comment = commentsOf(file);
  const lines = [`# ${file.package}`, '', `Generated from \`proto/${file.name}\` by \`npm run proto:gen\`; do not edit.`, ''];
  file.service.forEach((service, index) => {
    lines.push(`## service ${service.name}`, '', comment([PATH.service, index]), '', '| Method | Request | Response | Description |', '|---|---|---|---|');
    service.method.forEach((method, methodIndex) => {
      const short = (type: string) => type.replace(`.${file.package}.`, '');
      lines.push(`| \`${method.name}\` | ${short(method.inputType)} | ${short(method.outputType)} | ${cell(comment([PATH.service, index, PATH.method, methodIndex]))} |`);
    });
    lines.push('');
  });
  lines.push('## Messages', '');
  file.messageType.forEach((message, index) => lines.push(...messageSection(message, message.name, [PATH.message, index], file.package, comment)));
  if (file.enumType.length > 0) {
    lines.push('## Enums', '');
    file.enumType.forEach((entry, index) => lines.push(...enumSection(entry, entry.name, [PATH.enum, index], comment)));
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

const buf = join(PROTO_DIR, '..', 'node_modules', '.bin', 'buf');
const built = image.parse(JSON.parse(execFileSync(buf, ['build', '-o', '-#format=json'], { cwd: PROTO_DIR, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })));
rmSync(OUT_DIR, { recursive: true, force: true });
mkdirSync(OUT_DIR, { recursive: true });
for (const file of built.file.filter((candidate) => candidate.package.startsWith('gateway.'))) {
  const service = file.package.split('.')[1] ?? file.package;
  writeFileSync(join(OUT_DIR, `${service}.md`), reference(file));
}
