import { DockerfileParser, type Copy, type Instruction, type JSONInstruction } from 'dockerfile-ast';

export interface Stage {
  name: string;
  /** The stage or image it starts from. */
  from: string;
  instructions: Instruction[];
}

export interface ParsedDockerfile {
  stages: Stage[];
  /** `ARG` values declared before the first `FROM`. */
  globalArgs: Record<string, string | undefined>;
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const dockerfile = DockerfileParser.parse(text);
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const from = dockerfile.getFROMs().find((f) => f.getRange().start.line === instruction.getRange().start.line)!;
      stages.push({ name: from.getBuildStage() ?? String(stages.length), from: from.getImage() ?? '', instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  const globalArgs: Record<string, string | undefined> = {};
  for (const arg of dockerfile.getInitialARGs()) {
    const property = arg.getProperty();
    if (property) globalArgs[property.getName()] = property.getValue() ?? undefined;
  }
  return { stages, globalArgs };
}

/** The stage `name` and the stages it builds on, nearest first. */
export function stageChain(parsed: ParsedDockerfile, name: string): Stage[] {
  const chain: Stage[] = [];
  let stage = parsed.stages.find((s) => s.name === name);
  while (stage && !chain.includes(stage)) {
    chain.push(stage);
    const parent = stage.from;
    stage = parsed.stages.find((s) => s.name === parent);
  }
  return chain;
}

/** The instruction of that keyword in force for the target (the last one along its chain). */
export function effective(parsed: ParsedDockerfile, target: string, keyword: string): Instruction | undefined {
  for (const stage of stageChain(parsed, target)) {
    const found = stage.instructions.filter((i) => i.getKeyword() === keyword).at(-1);
    if (found) return found;
  }
  return undefined;
}

/** The exec-form (JSON array) arguments of CMD/ENTRYPOINT; undefined for the shell form. */
export function execForm(instruction: Instruction | undefined): string[] | undefined {
  const strings = (instruction as JSONInstruction | undefined)?.getJSONStrings?.();
  if (!strings || strings.length === 0) return undefined;
  return strings.map((s) => s.getJSONValue());
}

/** The `HEALTHCHECK CMD [...]` command, exec form. */
export function healthcheckCommand(instruction: Instruction | undefined): string[] | undefined {
  if (!instruction) return undefined;
  const content = instruction.getArgumentsContent() ?? '';
  const match = /(?:^|\s)CMD\s+(\[.*\])\s*$/s.exec(content.replace(/\\\n/g, ' '));
  return match ? (JSON.parse(match[1]!) as string[]) : undefined;
}

/** The `--from` stage of a COPY, if any. */
export function copyFrom(instruction: Instruction): string | undefined {
  return (instruction as Copy).getFlags?.().find((flag) => flag.getName() === 'from')?.getValue() ?? undefined;
}

/** `[source…, destination]` of each COPY of a stage that takes from stage `from`. */
export function copiesFrom(stage: Stage, from: string): string[][] {
  return stage.instructions
    .filter((i) => i.getKeyword() === 'COPY' && copyFrom(i) === from)
    .map((i) => i.getArguments().map((a) => a.getValue()));
}

/** Source paths of every COPY without --from (what the build context must hold). */
export function contextCopies(parsed: ParsedDockerfile): string[] {
  return parsed.stages.flatMap((stage) =>
    stage.instructions
      .filter((i) => i.getKeyword() === 'COPY' && copyFrom(i) === undefined)
      .flatMap((i) => i.getArguments().map((a) => a.getValue()).slice(0, -1)),
  );
}
