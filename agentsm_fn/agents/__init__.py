"""The built-in agents, each a machine of pure handlers over frozen memory.

* :mod:`agentsm_fn.agents.react`: the ReAct-style agent of agentsm-rs.
* :mod:`agentsm_fn.agents.plan_execute`: the plan-and-execute FSM of agent_runtime.
"""
