import type { Request } from 'express';
import { DomainError } from '@gateway/lib/errors';

/**
 * The router decodes path parameters itself and throws a URIError (status 400)
 * when one is not valid percent-encoding (`%ff%fe`). That is the caller's
 * mistake: it becomes a 400 naming the parameter, found by matching the raw
 * path against the registered route templates.
 */
export function isUndecodablePathError(error: unknown): boolean {
  return error instanceof URIError && (error as URIError & { status?: unknown }).status === 400;
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** The `:name` of the first template whose literal segments match the raw path and whose parameter there does not decode. */
export function undecodableParameter(templates: readonly string[], rawPath: string): string | undefined {
  const segments = rawPath.split('/');
  for (const template of templates) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    const literalsMatch = parts.every((part, index) => part.startsWith(':') || part === segments[index]);
    if (!literalsMatch) continue;
    const at = parts.findIndex((part, index) => part.startsWith(':') && !decodes(segments[index] ?? ''));
    if (at >= 0) return parts[at]?.slice(1);
  }
  return undefined;
}

export function undecodablePathError(req: Request): DomainError {
  const templates = req.app.router.stack.flatMap((layer) => (typeof layer.route?.path === 'string' ? [layer.route.path] : []));
  const name = undecodableParameter(templates, req.path);
  const what = name === undefined ? 'the path' : `path parameter "${name}"`;
  return new DomainError('validation', `Invalid request: ${what} is not valid percent-encoding (UTF-8 bytes as %XX).`, {
    field: name ?? 'path',
  });
}
