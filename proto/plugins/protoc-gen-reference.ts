import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
  type SourceCodeInfo_Location,
} from '@bufbuild/protobuf/wkt';
import { runPlugin, type PluginFile } from './run-plugin';

/**
 * Writes the reference of each contract, `<package>.md`, from the .proto
 * files and their comments: services and their methods, then every message
 * and enum with its fields. buf runs it with the stubs (proto/generate.sh),
 * and proto/check.sh fails when the committed reference is stale, so the
 * reference cannot drift from the contract.
 */

// Field numbers of descriptor.proto, which source locations' paths are made of.
const FILE_MESSAGE = 4;
const FILE_ENUM = 5;
const FILE_SERVICE = 6;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED = 3;
const MESSAGE_ENUM = 4;
const ENUM_VALUE = 2;
const SERVICE_METHOD = 2;

type Comments = (path: number[]) => string;

function commentsOf(file: FileDescriptorProto): Comments {
  const byPath = new Map<string, SourceCodeInfo_Location>();
  for (const location of file.sourceCodeInfo?.location ?? []) byPath.set(location.path.join('.'), location);
  return (path) => {
    const location = byPath.get(path.join('.'));
    return [location?.leadingComments, location?.trailingComments]
      .map((text) => (text ?? '').split('\n').map((line) => line.trim()).join('\n').trim())
      .filter(Boolean)
      .join(' ');
  };
}

/** Text for a table cell: one line, pipes escaped. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

const anchor = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

function scalarName(type: FieldDescriptorProto_Type): string {
  return FieldDescriptorProto_Type[type].replace(/^TYPE_/, '').toLowerCase();
}

class ReferenceWriter {
  private readonly lines: string[] = [];
  private readonly mapEntries = new Map<string, DescriptorProto>();

  constructor(private readonly packageName: string) {}

  /** `.gateway.pricing.v1.Baseline` -> a link within this package, or the full name outside it. */
  private typeRef(typeName: string): string {
    const full = typeName.replace(/^\./, '');
    const own = `${this.packageName}.`;
    return full.startsWith(own) ? `[${full.slice(own.length)}](#${anchor(full.slice(own.length))})` : `\`${full}\``;
  }

  private fieldType(field: FieldDescriptorProto): string {
    const entry = this.mapEntries.get(field.typeName.replace(/^\./, ''));
    if (entry) {
      const [key, value] = entry.field;
      return `map<${key ? this.fieldType(key) : '?'}, ${value ? this.fieldType(value) : '?'}>`;
    }
    const base =
      field.type === FieldDescriptorProto_Type.MESSAGE || field.type === FieldDescriptorProto_Type.ENUM
        ? this.typeRef(field.typeName)
        : scalarName(field.type);
    if (field.label === FieldDescriptorProto_Label.REPEATED) return `repeated ${base}`;
    return field.proto3Optional ? `optional ${base}` : base;
  }

  write(files: FileDescriptorProto[]): string {
    this.lines.push(`# \`${this.packageName}\``, '');
    this.lines.push(`Generated from ${files.map((file) => `\`proto/${file.name}\``).join(', ')} by \`npm run proto:gen\`; do not edit.`, '');
    for (const file of files) this.collectMapEntries(file.messageType, `${this.packageName}.`);
    for (const file of files) this.writeServices(file, commentsOf(file));
    this.lines.push('## Messages', '');
    for (const file of files) {
      const comments = commentsOf(file);
      file.messageType.forEach((message, index) => this.writeMessage(message, '', [FILE_MESSAGE, index], comments));
    }
    const enums = files.flatMap((file) => file.enumType.map((enumType, index) => ({ enumType, path: [FILE_ENUM, index], comments: commentsOf(file) })));
    if (enums.length > 0) {
      this.lines.push('## Enums', '');
      for (const { enumType, path, comments } of enums) this.writeEnum(enumType, '', path, comments);
    }
    return `${this.lines.join('\n').trimEnd()}\n`;
  }

  private collectMapEntries(messages: DescriptorProto[], prefix: string): void {
    for (const message of messages) {
      if (message.options?.mapEntry) this.mapEntries.set(`${prefix}${message.name}`, message);
      this.collectMapEntries(message.nestedType, `${prefix}${message.name}.`);
    }
  }

  private writeServices(file: FileDescriptorProto, comments: Comments): void {
    file.service.forEach((service, serviceIndex) => {
      const path = [FILE_SERVICE, serviceIndex];
      this.lines.push(`## ${service.name}`, '');
      const about = comments(path);
      if (about) this.lines.push(about, '');
      this.lines.push(`Full name: \`${this.packageName}.${service.name}\`.`, '');
      this.lines.push('| Method | Request | Response | Description |', '|---|---|---|---|');
      service.method.forEach((method, methodIndex) => {
        const request = `${method.clientStreaming ? 'stream ' : ''}${this.typeRef(method.inputType)}`;
        const response = `${method.serverStreaming ? 'stream ' : ''}${this.typeRef(method.outputType)}`;
        this.lines.push(`| \`${method.name}\` | ${request} | ${response} | ${cell(comments([...path, SERVICE_METHOD, methodIndex]))} |`);
      });
      this.lines.push('');
    });
  }

  private writeMessage(message: DescriptorProto, prefix: string, path: number[], comments: Comments): void {
    if (message.options?.mapEntry) return;
    const name = `${prefix}${message.name}`;
    this.lines.push(`### ${name}`, '');
    const about = comments(path);
    if (about) this.lines.push(about, '');
    if (message.field.length === 0) this.lines.push('No fields.', '');
    else {
      this.lines.push('| Field | Number | Type | Description |', '|---|---|---|---|');
      message.field.forEach((field, index) => {
        this.lines.push(`| \`${field.name}\` | ${field.number} | ${this.fieldType(field)} | ${cell(comments([...path, MESSAGE_FIELD, index]))} |`);
      });
      this.lines.push('');
    }
    message.nestedType.forEach((nested, index) => this.writeMessage(nested, `${name}.`, [...path, MESSAGE_NESTED, index], comments));
    message.enumType.forEach((nested, index) => this.writeEnum(nested, `${name}.`, [...path, MESSAGE_ENUM, index], comments));
  }

  private writeEnum(enumType: EnumDescriptorProto, prefix: string, path: number[], comments: Comments): void {
    this.lines.push(`### ${prefix}${enumType.name}`, '');
    const about = comments(path);
    if (about) this.lines.push(about, '');
    this.lines.push('| Value | Number | Description |', '|---|---|---|');
    enumType.value.forEach((value, index) => {
      this.lines.push(`| \`${value.name}\` | ${value.number} | ${cell(comments([...path, ENUM_VALUE, index]))} |`);
    });
    this.lines.push('');
  }
}

runPlugin((request): PluginFile[] => {
  const generated = new Set(request.fileToGenerate);
  const byPackage = new Map<string, FileDescriptorProto[]>();
  for (const file of request.protoFile) {
    if (!generated.has(file.name)) continue;
    byPackage.set(file.package, [...(byPackage.get(file.package) ?? []), file]);
  }
  return [...byPackage.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([packageName, files]) => ({ name: `${packageName}.md`, content: new ReferenceWriter(packageName).write(files) }));
});
