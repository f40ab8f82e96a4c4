import { messengerTypes, serverRegions, serverTiers } from '../../../auth/src/db/tables/agent-instances';
import { memoryCategories } from '../db/tables/memories';
import { sessionCategories, sessionStatuses } from '../db/tables/sessions';
import { workflowCommands } from '../db/tables/workflows';
import { agentEnums } from './enums';

/** The proto enums and the values the tables allow are one list, twice written: they must agree. */
describe('agent enums', () => {
  it('match the values the agent schema stores', () => {
    expect(agentEnums.sessionCategory.names).toEqual(sessionCategories);
    expect(agentEnums.sessionStatus.names).toEqual(sessionStatuses);
    expect(agentEnums.memoryCategory.names).toEqual(memoryCategories);
    expect(agentEnums.automateCommand.names).toEqual([...workflowCommands, 'status']);
  });

  it('match the values the auth schema stores for the agent record', () => {
    expect(agentEnums.messengerType.names).toEqual(messengerTypes);
    expect(agentEnums.serverTier.names).toEqual(serverTiers);
    expect(agentEnums.serverRegion.names).toEqual(serverRegions);
  });
});
